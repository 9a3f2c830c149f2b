/**
 * Queries for the latency benchmark: questions people actually asked on a forum, none of them
 * ever sent to the service before, so every first call misses the query-embedding cache. They
 * come from the SemEval-2016 Task 3 Qatar Living set (original question subjects and related
 * thread titles), read from ../shared/data and never stored in the repository. The corpus in
 * the index is a different forum (business/tech), so these are held out by construction.
 */
import { readFileSync } from "node:fs";
import { dataPath } from "../eval/shared-data.js";

const FOLDER = "eval/retrieval_semeval2016_task3_qatarliving";

/** Distinct, non-empty questions in a fixed, shuffled order (same order every run). */
export function loadBenchQueries(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (raw: unknown): void => {
    if (typeof raw !== "string") return;
    const q = raw.replace(/\s+/g, " ").trim();
    if (q.length < 8 || seen.has(q)) return;
    seen.add(q);
    out.push(q);
  };
  for (const file of ["derived_queries.jsonl", "derived_posts.jsonl"]) {
    for (const line of readFileSync(dataPath(FOLDER, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const row = JSON.parse(line) as { subject?: unknown; title?: unknown };
      add(row.subject ?? row.title);
    }
  }
  // A fixed pseudo-random order (xorshift), so every slice mixes queries from all threads.
  let s = 0x9e3779b9;
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Hands out queries in order; each is given out at most once (a cold cache stays cold). */
export class QueryPool {
  private next = 0;
  constructor(private readonly queries: readonly string[]) {}
  /** `n` unused queries; throws when the pool runs dry. */
  take(n: number): string[] {
    if (this.next + n > this.queries.length)
      throw new Error(`query pool exhausted: wanted ${n}, ${this.queries.length - this.next} left`);
    const out = this.queries.slice(this.next, this.next + n);
    this.next += n;
    return out;
  }
  get left(): number {
    return this.queries.length - this.next;
  }
}
