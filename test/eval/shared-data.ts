/**
 * Where the shared, openly licensed data lives. It is never copied into the repository: tests,
 * evaluations and training read it from `../shared/data` beside the checkout, or from
 * THREADSIGHT_SHARED_DATA when set.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";

/** Absolute path of the shared data root. */
export const SHARED_DATA: string = path.resolve(
  process.env.THREADSIGHT_SHARED_DATA ?? path.join(PACKAGE_ROOT, "..", "shared", "data"),
);

/** Absolute path of a file or folder under the shared data root. */
export function dataPath(...parts: string[]): string {
  return path.join(SHARED_DATA, ...parts);
}

/** True when every given path under the shared data root exists. */
export function hasData(...relative: string[]): boolean {
  return relative.every((r) => existsSync(dataPath(r)));
}
