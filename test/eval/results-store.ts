/**
 * Evaluated sections kept between runs, so `npm run eval -- --only a,b` re-runs some sections and
 * docs/EVALUATION.md still shows the others as last measured (each with its own run date and
 * machine). Kept beside the report it renders, in docs/evaluation.json (THREADSIGHT_EVAL_RESULTS
 * names another file), so a session on a new machine starts from them; never edited by hand.
 *
 * A section never run into the store (a document written before the store existed) is carried
 * over from the current docs/EVALUATION.md: its body under its heading, and the summary rows
 * whose first cell no stored section claims.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";

/** One evaluated section as the report shows it. */
export interface StoredEval {
  ranAt: string;
  durationS: number;
  /** The machine the section ran on ("not recorded" for runs older than the field). */
  machine?: string;
  body: string;
  goals: string[][];
  data: string[][];
}

/** The results store (committed with the report it renders). */
export const EVAL_RESULTS_FILE = path.resolve(
  process.env.THREADSIGHT_EVAL_RESULTS ?? path.join(PACKAGE_ROOT, "docs", "evaluation.json"),
);
const FILE = EVAL_RESULTS_FILE;
const DIR = path.dirname(FILE);

/** All stored sections by id. */
export function loadEvalResults(): Record<string, StoredEval> {
  if (!existsSync(FILE)) return {};
  return JSON.parse(readFileSync(FILE, "utf8")) as Record<string, StoredEval>;
}

/** Stores (replaces) one section. */
export function saveEvalResult(id: string, section: StoredEval): void {
  mkdirSync(DIR, { recursive: true });
  const all = loadEvalResults();
  all[id] = section;
  const sorted = Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((k) => [k, all[k]!]),
  );
  writeFileSync(`${FILE}.${process.pid}.tmp`, `${JSON.stringify(sorted, null, 1)}\n`);
  renameSync(`${FILE}.${process.pid}.tmp`, FILE);
}

/** What an earlier EVALUATION.md holds: section bodies by heading and the two summary tables. */
export interface PreviousReport {
  bodies: Map<string, string>;
  goals: string[][];
  data: string[][];
}

function tableAfter(lines: readonly string[], caption: string): string[][] {
  const at = lines.indexOf(caption);
  if (at < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === "") {
      if (rows.length > 0) break;
      continue;
    }
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
  }
  return rows.slice(2); // header and rule
}

/** Parses an earlier report (empty when there is none). */
export function readPreviousReport(file: string): PreviousReport {
  const bodies = new Map<string, string>();
  if (!existsSync(file)) return { bodies, goals: [], data: [] };
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const parts = text.split(/^## /m).slice(1);
  for (const part of parts) {
    const nl = part.indexOf("\n");
    bodies.set(part.slice(0, nl).trim(), part.slice(nl + 1).trim());
  }
  return { bodies, goals: tableAfter(lines, "Where we stand:"), data: tableAfter(lines, "Data used:") };
}
