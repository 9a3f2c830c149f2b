/**
 * `npm run generate`, second step (after `buf generate`): writes
 * gen/openapi/threadsight.openapi.json for the services the server exposes. Deterministic, so
 * CI can regenerate and fail on any diff.
 *
 * Run: node --import tsx scripts/gen-openapi.ts
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { generateOpenApiText } from "../src/openapi/generate.js";
import { OPENAPI_FILE } from "../src/openapi/openapi-file.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { API_SERVICES } from "../src/server.js";

await mkdir(path.dirname(OPENAPI_FILE), { recursive: true });
await writeFile(OPENAPI_FILE, await generateOpenApiText(API_SERVICES));
process.stdout.write(`wrote ${path.relative(PACKAGE_ROOT, OPENAPI_FILE)}\n`);
