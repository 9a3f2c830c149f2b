/**
 * The portal's static files (stylesheet, the explorer and copy scripts, icons, and the charting
 * library's browser build from node_modules), read once and served by us: no CDN, nothing
 * fetched elsewhere.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";

/** Where the asset files live in the package. */
export const ASSETS_DIR = path.join(PACKAGE_ROOT, "src/portal/web/assets");

const TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

/** One servable file. */
export interface Asset {
  body: Buffer;
  contentType: string;
}

/**
 * Browser builds of npm dependencies, served as our own assets (the CSP allows only 'self'):
 * asset name -> a file beside the package's resolved entry point.
 */
const VENDOR: Readonly<Record<string, { pkg: string; file: string }>> = {
  "chart.umd.min.js": { pkg: "chart.js", file: "chart.umd.min.js" },
};

/** Every asset by file name, vendored builds included; files of unknown types are not served. */
export function loadAssets(dir = ASSETS_DIR): ReadonlyMap<string, Asset> {
  const out = new Map<string, Asset>();
  const require = createRequire(import.meta.url);
  for (const [name, { pkg, file }] of Object.entries(VENDOR)) {
    const entry = require.resolve(pkg);
    out.set(name, { body: readFileSync(path.join(path.dirname(entry), file)), contentType: TYPES[".js"]! });
  }
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type !== undefined) out.set(name, { body: readFileSync(path.join(dir, name)), contentType: type });
  }
  return out;
}
