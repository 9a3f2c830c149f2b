/**
 * The "Current figures" table at the top of docs/BENCHMARKS.md: one row per figure of the stored
 * sections (docs/benchmarks.json), each with the machine it ran on and the date it started, so a
 * reader sees what holds today without the narrative below. Sections carried over from reports
 * older than the store are listed in a table of their own (report-carried-figures.ts).
 */
import type { FloorResult } from "./floor.js";
import type { StoredSection } from "./results-store.js";

interface RatioData {
  backend: string;
  posts: number;
  rounds: number;
  medianRatio: number;
}

interface ReingestData {
  backend: string;
  posts: number;
  rounds: number;
  medianSpeedup: number;
}

const HEADER = ["figure", "backend", "posts", "value", "machine", "date (UTC)", "load at start"];

function cell(s: StoredSection): string[] {
  const m = s.machine;
  return [`${m.cpu}, ${m.cores} cores`, m.at.slice(0, 10), m.load.map((x) => x.toFixed(2)).join(" / ")];
}

/** The rows of the table for the stored sections, in key order. */
export function summaryRows(all: Record<string, StoredSection>): string[][] {
  const rows: string[][] = [];
  for (const key of Object.keys(all).sort()) {
    const s = all[key] as StoredSection;
    if (key.startsWith("ingest-ratio:")) {
      const d = s.data as RatioData;
      rows.push([
        "ingest pipeline / raw encoder (median of rounds)",
        d.backend,
        d.posts.toLocaleString("en-US"),
        `${(100 * d.medianRatio).toFixed(1)}% (${d.rounds} rounds)`,
        ...cell(s),
      ]);
    } else if (key.startsWith("reingest:")) {
      const d = s.data as ReingestData;
      rows.push([
        "re-ingesting unchanged files, speed-up over the first ingest",
        d.backend,
        d.posts.toLocaleString("en-US"),
        `${d.medianSpeedup.toFixed(1)}x (${d.rounds} rounds)`,
        ...cell(s),
      ]);
    } else if (key.startsWith("floor:")) {
      const d = s.data as FloorResult;
      for (const r of d.rows) {
        rows.push([
          `${r.method}: end-to-end over the raw engine call (gRPC)`,
          d.backend,
          d.posts.toLocaleString("en-US"),
          `${r.endToEnd.toFixed(1)} ms, ${r.ratio.toFixed(2)}x`,
          ...cell(s),
        ]);
      }
    }
  }
  return rows;
}

/** The section's Markdown. */
export function summarySection(all: Record<string, StoredSection>): string[] {
  const rows = summaryRows(all);
  const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;
  return [
    "## Current figures",
    "",
    "Generated from the stored sections (docs/benchmarks.json) by `npm run bench -- --only report`; each row names the",
    "machine and day its section ran. The sections below give each figure's method, spread and goal.",
    "",
    line(HEADER),
    line(HEADER.map(() => "---")),
    ...(rows.length > 0 ? rows.map(line) : [line(["(no section stored yet)", "", "", "", "", "", ""])]),
    "",
  ];
}
