/**
 * Small markdown helpers for evaluation sections: fixed-precision numbers and tables.
 */

/** A number with `digits` decimals; "-" for NaN. */
export function fmt(x: number, digits = 3): string {
  return Number.isFinite(x) ? x.toFixed(digits) : "-";
}

/** A score 0..1 as points (x100) with one decimal, the usual way F1 gaps are quoted. */
export function pts(x: number): string {
  return fmt(100 * x, 1);
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** "met" / "NOT met" for a goal. */
export function goal(met: boolean): string {
  return met ? "met" : "**NOT met**";
}
