/**
 * Sections of the current docs/BENCHMARKS.md that the results store cannot render again are
 * carried into the new report as they stand. The store lives in the repository since 2026-11-27
 * (results-store.ts); the sections measured before that, on a machine since gone, exist only as
 * the report's text, and a run on another machine re-measures some parts, not all.
 *
 * The unit carried is a backend's block: from a line opening with **lancedb** or **weaviate** to
 * the next such line or the next heading. A section with no block of its own (the limiter's, the
 * scaling table) is carried whole when the new report measured nothing in it.
 */

import { carriedRows as carriedFigureRows, withCarriedFigures } from "./report-carried-figures.js";

/** A heading ("" for the text before the first) and the lines under it. */
interface Section {
  heading: string;
  lines: string[];
}

const HEADING = /^#{1,3} /;
const BACKEND_LINE = /^\*\*(lancedb|weaviate)\*\*/;
/** How the renderer opens a line for a part it has no data for. */
const PLACEHOLDER = "Not measured yet";

/**
 * The name of a measured line ("... (measured <date> ...)"), or undefined for any other line: the
 * backend in bold, a per-slice bullet ("- 4,000 posts"), or a sentence whose counts vary from run
 * to run (the Weaviate copy's rows, the limiter's runs) cut at its first colon, numbers blanked.
 */
function measuredName(line: string): string | undefined {
  const at = line.indexOf("(measured ");
  if (at < 0) return undefined;
  const head = line.slice(0, at);
  return (
    /^\*\*[^*]+\*\*/.exec(head)?.[0] ??
    (head.startsWith("- ")
      ? head.trim()
      : head
          .split(":")[0]!
          .replace(/\d[\d,.]*/g, "N")
          .trim())
  );
}

/**
 * The measured sections a report shows, by the heading they stand under and the name of their
 * line: "## Search latency / **lancedb**". Their figures and dates may change between two
 * reports; the set of sections should only grow.
 */
export function measuredSections(text: string): Set<string> {
  return new Set(measuredLines(text).map((m) => m.key));
}

/** Every measured line of a report with its name (as measuredSections gives it) and heading. */
function measuredLines(text: string): { key: string; heading: string; line: string }[] {
  const out: { key: string; heading: string; line: string }[] = [];
  let heading = "";
  let backend = "";
  for (const line of text.split("\n")) {
    if (/^#{2,3} /.test(line)) {
      heading = line.trim();
      backend = "";
    }
    backend = BACKEND_LINE.exec(line)?.[0] ?? backend;
    const name = measuredName(line);
    if (name === undefined) continue;
    // A bullet is a row of the backend block it stands in ("- 4,000 posts" of **lancedb**).
    const key = `${heading} / ${name.startsWith("- ") && backend !== "" ? `${backend} / ` : ""}${name}`;
    out.push({ key, heading, line: name.startsWith("- ") && backend !== "" ? `${backend} ${line}` : line });
  }
  return out;
}

function split(text: string): Section[] {
  const out: Section[] = [{ heading: "", lines: [] }];
  for (const line of text.split("\n")) {
    if (HEADING.test(line)) out.push({ heading: line.trim(), lines: [] });
    else out.at(-1)!.lines.push(line);
  }
  return out;
}

/** A section's backend blocks by backend, each its lines up to the next block or the end. */
function blocks(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines) {
    const backend = BACKEND_LINE.exec(line)?.[1];
    if (backend !== undefined) {
      current = [];
      out.set(backend, current);
    }
    current?.push(line);
  }
  return out;
}

/** Paragraphs of a block (runs of lines between blank lines). */
function paragraphs(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") {
      if (current.length > 0) out.push(current);
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) out.push(current);
  return out;
}

const measured = (lines: readonly string[]): boolean => lines.some((l) => l.includes("(measured "));
const unmeasured = (lines: readonly string[]): boolean => lines.some((l) => l.startsWith(PLACEHOLDER));

/**
 * A carried block without the paragraphs that are measurements of their own which the new report
 * has again (the Weaviate copy's line follows the Weaviate ingest's block in "All four corpora").
 */
function stillMissing(block: readonly string[], freshNames: ReadonlySet<string>): string[] {
  const [head, ...rest] = paragraphs(block);
  const kept = rest.filter((p) => !p.some((l) => freshNames.has(measuredName(l) ?? "\u0000")));
  return [head ?? [], ...kept].flatMap((p) => [...p, ""]);
}

/** The header of a per-row table whose rows name their backend and size (the scaling table). */
const ROW_TABLE = "| backend | posts |";

const cells = (line: string): string[] =>
  line
    .slice(1, -1)
    .split(" | ")
    .map((c) => c.trim());

/** The first table of `lines` whose header opens with ROW_TABLE: where it starts and its lines. */
function rowTable(lines: readonly string[]): { at: number; rows: string[] } | undefined {
  const at = lines.findIndex((l) => l.startsWith(ROW_TABLE));
  if (at < 0) return undefined;
  let end = at;
  while (lines[end]?.startsWith("|")) end++;
  return { at, rows: lines.slice(at, end) };
}

/**
 * A section whose new table lacks rows the current one has (sizes measured before the store was
 * kept): the new lines with those rows added under the new header. Columns the old rows lack
 * (machine, date) say "not recorded"; an old "measured" cell goes to the new "run" column. A
 * table of the current section the new one lacks altogether (the growth table) follows the new
 * table. Undefined when the section has no such table or nothing is missing.
 */
export function mergeRows(
  fresh: readonly string[],
  current: readonly string[],
): { lines: string[]; carried: string[][] } | undefined {
  const mine = rowTable(fresh);
  const old = rowTable(current);
  if (!mine || !old) return undefined;
  const header = cells(mine.rows[0]!);
  const oldHeader = cells(old.rows[0]!);
  const key = (r: string[]): string => `${r[0]} ${r[1]}`;
  const have = new Set(mine.rows.slice(2).map((l) => key(cells(l))));
  const missing = old.rows
    .slice(2)
    .map(cells)
    .filter((r) => !have.has(key(r)));
  if (missing.length === 0) return undefined;
  const moved = missing.map((r) =>
    header.map((h) => {
      // Reports before the machine and date columns had one "measured" cell where "run" is now.
      const i = oldHeader.includes(h) ? oldHeader.indexOf(h) : oldHeader.indexOf(h === "run" ? "measured" : h);
      return i >= 0 ? (r[i] ?? "") : "not recorded";
    }),
  );
  const size = (r: string[]): number => Number((r[1] ?? "").replace(/,/g, ""));
  const body = [...mine.rows.slice(2).map(cells), ...moved].sort(
    (a, b) => (a[0] ?? "").localeCompare(b[0] ?? "") || size(a) - size(b),
  );
  const line = (r: readonly string[]): string => `| ${r.join(" | ")} |`;
  // Captioned tables of the current section (a caption line, a blank, the table) the new one lacks.
  const extra: string[] = [];
  for (let i = 0; i < current.length; i++) {
    const caption = current[i]!;
    const head = current[i + 2] ?? "";
    if (!caption.endsWith(":") || !head.startsWith("|") || head.startsWith(ROW_TABLE) || fresh.includes(caption))
      continue;
    let end = i + 2;
    while (current[end]?.startsWith("|")) end++;
    extra.push("", caption, "", ...current.slice(i + 2, end));
  }
  const end = mine.at + mine.rows.length;
  const lines = [
    ...fresh.slice(0, mine.at),
    ...[mine.rows[0]!, mine.rows[1]!, ...body.map(line)],
    ...extra,
    // The renderer's placeholders speak of the store alone; the carried rows may answer them.
    ...fresh.slice(end).filter((l) => !l.startsWith(PLACEHOLDER)),
  ];
  return { lines, carried: moved.map((r) => [`${r[0]} ${r[1]} posts`, r[header.indexOf("run")] ?? ""]) };
}

/**
 * `fresh` (rendered from the store) with every block and section of `current` (the report as it
 * stands) that `fresh` lacks, each under its own heading; headings `fresh` no longer has are not
 * carried (the renderer dropped them on purpose), except the sub-sections of a section carried
 * whole, which the renderer writes only with data.
 */
export function carryOver(fresh: string, current: string): string {
  const oldSections = split(current);
  const old = new Map(oldSections.map((s) => [s.heading, s.lines]));
  const freshSections = split(fresh);
  const freshHeadings = new Set(freshSections.map((s) => s.heading));
  const out: string[] = [];
  const carriedRows: string[][] = [];
  let carried = false;
  for (const [i, section] of freshSections.entries()) {
    if (i > 0) out.push(section.heading);
    const before = old.get(section.heading);
    if (before === undefined || section.heading === "") {
      out.push(...section.lines);
      continue;
    }
    const merged = mergeRows(section.lines, before);
    if (merged) {
      carried = true;
      out.push(...merged.lines);
      for (const [name = "", run = ""] of merged.carried)
        carriedRows.push([section.heading.replace(/^#+ /, ""), name, run]);
      const at = oldSections.findIndex((s) => s.heading === section.heading);
      for (const sub of oldSections.slice(at + 1)) {
        if (!sub.heading.startsWith("### ") || freshHeadings.has(sub.heading)) break;
        out.push(sub.heading, ...sub.lines);
      }
      continue;
    }
    // Nothing measured here in the new report (the scaling table's rows carry no measured line,
    // only its placeholder says so), where the current one has something: the whole section.
    if (!measured(section.lines) && (measured(before) || (unmeasured(section.lines) && !unmeasured(before)))) {
      carried = true;
      // The new report's method and goal lines, then the current one's figures without its prose.
      const intro = leadingProse(section.lines).filter((l) => !l.startsWith(PLACEHOLDER));
      out.push(...intro);
      while (out.length > 0 && out.at(-1)!.trim() === "") out.pop();
      out.push("", ...withoutLeadingProse(before));
      const at = oldSections.findIndex((s) => s.heading === section.heading);
      for (const sub of oldSections.slice(at + 1)) {
        if (!sub.heading.startsWith("### ") || freshHeadings.has(sub.heading)) break;
        out.push(sub.heading, ...sub.lines);
      }
      continue;
    }
    const have = blocks(section.lines);
    const missing = [...blocks(before).entries()].filter(([backend]) => !have.has(backend));
    if (missing.length === 0) {
      out.push(...section.lines);
      continue;
    }
    carried = true;
    // Bullets are rows of their own block; only a standalone measured sentence stands for itself.
    const freshNames = new Set(section.lines.flatMap((l) => measuredName(l) ?? []).filter((n) => !n.startsWith("- ")));
    // The renderer's placeholders speak of the store alone; the carried blocks may answer them.
    out.push(...section.lines.filter((l) => !l.startsWith(PLACEHOLDER)));
    while (out.length > 0 && out.at(-1)!.trim() === "") out.pop();
    out.push("");
    for (const [, lines] of missing) out.push(...stillMissing(lines, freshNames));
  }
  if (!carried) return out.join("\n");
  const freshKeys = measuredSections(fresh);
  const lines = measuredLines(out.join("\n")).filter((m) => !freshKeys.has(m.key));
  const rows = [
    ...carriedFigureRows(lines.map((m) => [m.heading, m.line] as const)),
    ...carriedRows.map(([heading, name, run]) => [
      heading!,
      name!,
      "not recorded",
      "not recorded",
      /load ([\d.]+)/.exec(run ?? "")?.[1] ?? "not recorded",
    ]),
  ];
  return withCarriedFigures(withCarriedMachine(out, current.split("\n")), rows).join("\n");
}

/**
 * A carried section's lines from its first figure on: paragraphs before the first table, backend
 * block or measured line are the old report's narrative, which the renderer's own method line
 * and the decision records replace.
 */
function withoutLeadingProse(lines: readonly string[]): string[] {
  const paras = paragraphs(lines);
  const first = paras.findIndex((p) => p.some(isFigure));
  return (first < 0 ? paras : paras.slice(first)).flatMap((p) => [...p, ""]);
}

/** The paragraphs before a section's first figure (its method and goal lines). */
function leadingProse(lines: readonly string[]): string[] {
  const paras = paragraphs(lines);
  const first = paras.findIndex((p) => p.some(isFigure));
  return (first < 0 ? paras : paras.slice(0, first)).flatMap((p) => [...p, ""]);
}

function isFigure(l: string): boolean {
  return l.startsWith("|") || BACKEND_LINE.test(l) || l.includes("(measured ");
}

const CARRIED_MACHINE =
  "- Sections carried over from earlier reports, whose measured line names no processor, ran on: ";

/**
 * The report's header with a line naming the machine of the carried sections: until 2026-11-27
 * a section's line named no machine, only the header did ("- Machine: ..."), and the new header
 * names the store's machines.
 */
function withCarriedMachine(report: string[], currentLines: readonly string[]): string[] {
  const header = currentLines.slice(
    0,
    currentLines.findIndex((l) => l.startsWith("## ")),
  );
  const previous =
    header.find((l) => l.startsWith(CARRIED_MACHINE))?.slice(CARRIED_MACHINE.length) ??
    header
      .find((l) => l.startsWith("- Machine: ") && !l.includes("(no section measured yet)"))
      ?.slice("- Machine: ".length);
  const at = report.findIndex((l) => /^- Machines? /.test(l));
  if (previous === undefined || at < 0) return report;
  return [...report.slice(0, at + 1), `${CARRIED_MACHINE}${previous}`, ...report.slice(at + 1)];
}
