/**
 * Counts for one ingest run or file, and the summary printed at the end.
 */

import type { SkipReason } from "./read-item.js";
import { SKIP_REASONS } from "./read-item.js";

/** What happened to the records of an input. */
export interface IngestStats {
  /** Records read: posts plus skipped records. */
  read: number;
  /** Posts new to the index. */
  inserted: number;
  /** Posts that replaced one with the same id. */
  updated: number;
  /** Posts identical to the stored one with the same id, so not written. */
  unchanged: number;
  /** Posts the index refused (reported per id). */
  failed: number;
  skipped: Record<SkipReason, number>;
}

/** All-zero stats. */
export function emptyStats(): IngestStats {
  return {
    read: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    skipped: Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>,
  };
}

/** Total skipped records. */
export function skippedTotal(stats: IngestStats): number {
  return SKIP_REASONS.reduce((sum, r) => sum + stats.skipped[r], 0);
}

/** Adds `b` into `a` (mutates and returns `a`). */
export function addStats(a: IngestStats, b: IngestStats): IngestStats {
  a.read += b.read;
  a.inserted += b.inserted;
  a.updated += b.updated;
  a.unchanged += b.unchanged;
  a.failed += b.failed;
  for (const r of SKIP_REASONS) a.skipped[r] += b.skipped[r];
  return a;
}

/** Restores stats saved as JSON, tolerating reasons added since. */
export function statsFromJson(value: unknown): IngestStats {
  const stats = emptyStats();
  if (typeof value !== "object" || value === null) return stats;
  const v = value as Partial<Record<keyof IngestStats, unknown>>;
  for (const key of ["read", "inserted", "updated", "unchanged", "failed"] as const) {
    const n = v[key];
    if (typeof n === "number" && Number.isFinite(n)) stats[key] = n;
  }
  if (typeof v.skipped === "object" && v.skipped !== null) {
    for (const r of SKIP_REASONS) {
      const n = (v.skipped as Record<string, unknown>)[r];
      if (typeof n === "number") stats.skipped[r] = n;
    }
  }
  return stats;
}

/** "read 1,000, inserted 990, updated 0, unchanged 0, failed 0, skipped 10 (bad_json 4, missing_title 6)". */
export function formatStats(stats: IngestStats): string {
  const fmt = (n: number): string => n.toLocaleString("en-US");
  const reasons = SKIP_REASONS.filter((r) => stats.skipped[r] > 0).map((r) => `${r} ${fmt(stats.skipped[r])}`);
  const skipped = `skipped ${fmt(skippedTotal(stats))}${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""}`;
  return `read ${fmt(stats.read)}, inserted ${fmt(stats.inserted)}, updated ${fmt(stats.updated)}, unchanged ${fmt(stats.unchanged)}, failed ${fmt(stats.failed)}, ${skipped}`;
}
