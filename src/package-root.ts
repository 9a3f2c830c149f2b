/**
 * Locates the installed package's root (the folder holding our package.json), so bundled
 * assets (plan catalogs, portal files) resolve the same from src/ under tsx and from dist/.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function find(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (existsSync(candidate)) {
      const name = (JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name;
      if (name === "threadsight") return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("threadsight package root not found");
    dir = parent;
  }
}

/** Absolute path of the package root. */
export const PACKAGE_ROOT: string = find();
