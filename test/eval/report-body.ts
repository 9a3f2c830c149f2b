/**
 * What EVALUATION.md shows of a stored section body: its figures, not its narrative. A section's
 * run returns markdown in which tables and result lists sit among paragraphs of method and
 * history; the report keeps the sub-headings, tables and lists, with the short caption that
 * introduces each, and leaves the prose to the section's method note and its decision records.
 */

type Block = { kind: "heading" | "table" | "list" | "prose"; text: string };

/** Captions longer than this are paragraphs of narrative, not captions. */
const CAPTION_CHARS = 400;

function blocksOf(body: string): Block[] {
  const blocks: Block[] = [];
  for (const raw of body.split(/\n\s*\n/)) {
    const text = raw.trim();
    if (text === "") continue;
    const lines = text.split("\n");
    // A heading glued to the paragraph under it (no blank line) is still its own block.
    if (lines[0]!.startsWith("#") && lines.length > 1) {
      blocks.push({ kind: "heading", text: lines[0]! });
      blocks.push(...blocksOf(lines.slice(1).join("\n")));
      continue;
    }
    const kind = lines[0]!.startsWith("#")
      ? "heading"
      : lines.every((l) => l.startsWith("|"))
        ? "table"
        : lines.every((l) => /^(- | {2})/.test(l))
          ? "list"
          : "prose";
    blocks.push({ kind, text });
  }
  return blocks;
}

/** The caption of a table or list: the paragraph's last sentence when it ends in a colon. */
function captionOf(prose: string): string | undefined {
  const flat = prose.replace(/\s*\n\s*/g, " ");
  if (!flat.endsWith(":")) return undefined;
  const starts = [...flat.matchAll(/[.!?)] (?=[A-Z"(])/g)].map((m) => m.index + 2);
  const caption = flat.slice(starts.at(-1) ?? 0);
  return caption.length <= CAPTION_CHARS ? caption : undefined;
}

/** The run line ("Run: <ISO> (<n> s) on <machine>.") is dropped: the report prints its own. */
function isRunLine(b: Block): boolean {
  return b.kind === "prose" && b.text.startsWith("Run: ");
}

/** A stored body reduced to its headings, tables and lists, each with its caption. */
export function figuresOf(body: string): string {
  const blocks = blocksOf(body).filter((b) => !isRunLine(b));
  const kept: string[] = [];
  const level = (h: string): number => /^#+/.exec(h)?.[0].length ?? 0;
  blocks.forEach((b, i) => {
    if (b.kind === "table" || b.kind === "list") {
      kept.push(b.text);
      return;
    }
    const next = blocks[i + 1];
    if (b.kind === "prose") {
      const caption = next && next.kind !== "heading" && next.kind !== "prose" ? captionOf(b.text) : undefined;
      if (caption) kept.push(caption);
      return;
    }
    // A heading stays when something it holds follows before a heading of its level or above.
    const rest = blocks.slice(i + 1);
    const end = rest.findIndex((r) => r.kind === "heading" && level(r.text) <= level(b.text));
    if ((end < 0 ? rest : rest.slice(0, end)).some((r) => r.kind === "table" || r.kind === "list")) kept.push(b.text);
  });
  return kept.join("\n\n");
}
