/**
 * The portal's static files (stylesheet, the explorer and copy scripts), read once from
 * src/portal/web/assets in the package and served by us: no CDN, nothing fetched elsewhere.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";

/** Where the asset files live in the package. */
export const ASSETS_DIR = path.join(PACKAGE_ROOT, "src/portal/web/assets");

const TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** One servable file. */
export interface Asset {
  body: Buffer;
  contentType: string;
}

/** Every asset by file name; files of unknown types are not served. */
export function loadAssets(dir = ASSETS_DIR): ReadonlyMap<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type !== undefined) out.set(name, { body: readFileSync(path.join(dir, name)), contentType: type });
  }
  return out;
}
