/**
 * Reads the hand-written sentence files under src/enrich/leads/seeds/ (ours, committed): one
 * `label<TAB>text` per line, label 1 (the class) or 0 (not), `#` comments. The training script
 * and the evaluation's development sweeps read them through here, so both see the same lines.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";

export interface SeedLine {
  text: string;
  gold: boolean;
}

/** `file`: a path relative to the package root, e.g. "src/enrich/leads/seeds/suggestion-dev.tsv". */
export function readSeedFile(file: string): SeedLine[] {
  return readFileSync(path.join(PACKAGE_ROOT, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => {
      const [label, text] = l.split("\t");
      if ((label !== "0" && label !== "1") || !text) throw new Error(`bad line in ${file}: ${l}`);
      return { text, gold: label === "1" };
    });
}
