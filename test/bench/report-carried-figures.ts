/**
 * Where and when each figure carried over from reports older than the store was measured, as a
 * table beside "Current figures". A carried section's measured line reads "(measured <day> <time>
 * UTC[ on <cpu>], <minutes>, load at start <1/5/15 min> ...)": the processor is named only by lines
 * written since the store was kept, so older lines get "not recorded" in the machine column rather
 * than the machine a later header named.
 */
import { table } from "../eval/format.js";

/** The columns of the carried table; the first two name the figure as the sections below do. */
const HEADER = ["section", "figure", "machine", "date (UTC)", "load at start"];

/** Where the "Current figures" table ends: the carried table goes after it. */
const CURRENT_FIGURES = "## Current figures";

const MEASURED = /\(measured (\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC(?: on ([^,]+))?,/;
const LOAD = /load at start ([\d.]+ \/ [\d.]+ \/ [\d.]+)/;

/** A figure's name as its section's line opens: up to its parenthesis, and at most two clauses. */
function figureName(line: string): string {
  const head = line.slice(0, line.indexOf("(measured ")).replace(/\*\*/g, "").replace(/^- /, "");
  const name = head.split(" (")[0]!.replace(/[,:;\s]+$/, "");
  return name.length <= 80 ? name : name.split(/[,;] /).slice(0, 2).join(", ");
}

/** One row per measured line of `carried` (a list of [heading, line] pairs). */
export function carriedRows(carried: readonly (readonly [string, string])[]): string[][] {
  return carried.map(([heading, line]) => {
    const m = MEASURED.exec(line);
    return [
      heading.replace(/^#+ /, ""),
      figureName(line) || "(unnamed)",
      m?.[2]?.trim() ?? "not recorded",
      m?.[1] ?? "not recorded",
      LOAD.exec(line)?.[1] ?? "not recorded",
    ];
  });
}

/** `report` with the carried table inserted after the "Current figures" table (unchanged when there is none). */
export function withCarriedFigures(report: string[], rows: readonly string[][]): string[] {
  if (rows.length === 0) return report;
  const at = report.indexOf(CURRENT_FIGURES);
  if (at < 0) return report;
  let end = report.findIndex((l, i) => i > at && l.startsWith("|"));
  if (end < 0) return report;
  while (report[end]?.startsWith("|")) end++;
  return [
    ...report.slice(0, end),
    "",
    "Carried over from reports older than the store (not in docs/benchmarks.json, so not re-rendered from it); the",
    "figures are in the sections below. A machine is named only where the section's own line recorded it: the",
    "reports these came from named only the machine of their latest write, which the header above repeats.",
    "",
    table(HEADER, rows),
    ...report.slice(end),
  ];
}
