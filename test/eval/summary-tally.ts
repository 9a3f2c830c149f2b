/**
 * Counting a summary's quotes against SemEval-2016 Task 3 judgements: which judged threads its
 * citations [n] name, for the ai_summary evaluation (sections/summary.ts).
 */
import { extractiveSummary, type SummaryWeights } from "../../src/core/summary/extractive.js";
import type { SummaryInput } from "../../src/core/summary/summarizer.js";
import type { Query } from "./retrieval.js";

/** Results the earlier extractive summarizer reads (RESULTS_READ in extractive.ts). */
export const READ = 8;

/** A result the summarizer reads, with the thread id the judgements name. */
export type Result = SummaryInput & { id: string };

export interface Tally {
  questions: number;
  quotes: number;
  relevantQuotes: number;
  firstRelevant: number;
  anyRelevant: number;
  /** Distinct results cited, summed over summaries: how many posts a summary speaks for. */
  postsQuoted: number;
  readRelevant: number;
  read: number;
  top3Relevant: number;
}

/** Writes a summary of `rs` for `q`: the earlier summary with `weights` unless told otherwise. */
export type Summarize = (q: Query, rs: Result[]) => string;

export function tally(
  queries: readonly Query[],
  results: (q: Query) => Result[],
  weights: SummaryWeights = {},
  summarize: Summarize = (q, rs) => extractiveSummary(q.subject, rs, weights),
): Tally {
  const t: Tally = {
    questions: 0,
    quotes: 0,
    relevantQuotes: 0,
    firstRelevant: 0,
    anyRelevant: 0,
    postsQuoted: 0,
    readRelevant: 0,
    read: 0,
    top3Relevant: 0,
  };
  for (const q of queries) {
    const relevant = (id: string) => (q.grades.get(id) ?? 0) >= 1;
    if (![...q.grades.keys()].some(relevant)) continue;
    const rs = results(q);
    const cited = [...summarize(q, rs).matchAll(/\[(\d+)\]/g)].map((m) => rs[Number(m[1]) - 1]!.id);
    t.questions++;
    t.quotes += cited.length;
    t.relevantQuotes += cited.filter(relevant).length;
    if (cited.length > 0 && relevant(cited[0]!)) t.firstRelevant++;
    if (cited.some(relevant)) t.anyRelevant++;
    t.postsQuoted += new Set(cited).size;
    const read = rs.slice(0, READ);
    t.read += read.length;
    t.readRelevant += read.filter((r) => relevant(r.id)).length;
    t.top3Relevant += rs.slice(0, 3).filter((r) => relevant(r.id)).length;
  }
  return t;
}
