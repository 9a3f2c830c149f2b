/**
 * Plain-text tables for CLI listings: columns padded to their widest cell, two spaces apart, no
 * trailing blanks, so the output reads in a terminal and still splits on whitespace in scripts.
 */

/** Renders `rows` (the first is the header) as aligned lines. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
