/**
 * Where the generated OpenAPI document lives, and reading it. The server serves the committed
 * file rather than rebuilding it, because the proto comments it carries come from `buf build`,
 * which is a development tool, not a runtime dependency.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../package-root.js";

/** gen/openapi/threadsight.openapi.json, written by `npm run generate`. */
export const OPENAPI_FILE = path.join(PACKAGE_ROOT, "gen/openapi/threadsight.openapi.json");

let cached: string | undefined;

/** The document's text, read once per process. Throws naming the fix when the file is missing. */
export function openApiText(): string {
  if (cached === undefined) {
    try {
      cached = readFileSync(OPENAPI_FILE, "utf8");
    } catch (cause) {
      throw new Error(`${OPENAPI_FILE} cannot be read; run \`npm run generate\``, { cause });
    }
  }
  return cached;
}
