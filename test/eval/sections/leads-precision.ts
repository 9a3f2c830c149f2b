/**
 * FindLeads precision@10 judged against the hand-labelled lead set: the 1,600 labelled posts of
 * every split are indexed through ingest's write path (leads-service.ts), the 30 queries of
 * test/eval/labels/leads-queries.tsv (written before any result was seen) are asked with limit 10
 * and the API's default min_score, and each returned post is judged by the written rule
 * (leads-queries.ts). Besides the figures, each miss is put down to the step that made it: the
 * lead classification at ingest, the relevance floor, the subject rule, or retrieval and ranking.
 * Nothing here is tuned.
 */
import type { LocalEncoderName } from "../../../src/config.js";
import { loadConfig } from "../../../src/config.js";
import {
  cosineOfUnit,
  judgeLead,
  leadFloorFor,
  postWords,
  relevanceQuery,
} from "../../../src/core/absolute-relevance.js";
import { RULES } from "../../../src/core/request-rules.js";
import { MiniLmFilesError } from "../../../src/enrich/minilm/minilm-files.js";
import type { IndexedPost } from "../../../src/model/post.js";
import { missingBackend } from "../../harness/backend-policy.js";
import { ENCODER_MODELS } from "../embedding-cache.js";
import { fmt, table } from "../format.js";
import { LABELLED_CORPORA, labelledPosts } from "../labelled-posts.js";
import { isLead, type LeadLabel, loadLeadLabels } from "../lead-labels.js";
import { isRelevantLead, type JudgedAnswer, judgeAnswer, type LeadQuery, loadLeadQueries } from "../leads-queries.js";
import { type LeadsAnswer, type LeadsRun, leadsAnswers } from "../leads-service.js";
import type { EvalContext, EvalSection } from "../section.js";

const ENCODERS: readonly LocalEncoderName[] = ["use-lite", "all-minilm-l6-v2"];
/** FindLeads' page size here, and the API's default min_score (the spec leaves it open). */
const LIMIT = 10;
const MIN_SCORE = RULES.minScoreDefault;

/** Where each wrong or missing post was lost, counted over all queries. */
interface Failures {
  /** Returned, labelled none or drop: the ingest classifier called it a lead. */
  returnedNotLead: number;
  /** Returned, labelled a lead for another target: judged about the query wrongly. */
  returnedOtherTarget: number;
  /** Relevant, but not a lead at min_score in the index. */
  missedClassified: number;
  /** Relevant and a lead, but its relevance is under the floor. */
  missedFloor: number;
  /** Relevant, a lead, over the floor, but failed the subject rule. */
  missedSubject: number;
  /** Relevant and judged about the query, yet not returned (not a candidate, or ranked past 10). */
  missedRetrieval: number;
}

function isIndexedLead(row: IndexedPost): boolean {
  return row.leadType !== "" && row.leadScore >= MIN_SCORE;
}

/** Counts the failures of one query's answer. */
function failuresOf(
  q: LeadQuery,
  answer: LeadsAnswer,
  run: LeadsRun,
  labels: ReadonlyMap<string, LeadLabel>,
  into: Failures,
): void {
  const returned = new Set(answer.ids);
  for (const id of answer.ids) {
    const l = labels.get(id)!;
    if (isRelevantLead(q, l)) continue;
    isLead(l) ? into.returnedOtherTarget++ : into.returnedNotLead++;
  }
  const floor = leadFloorFor(run.model);
  const judged = relevanceQuery(answer.subject, loadConfig({}));
  for (const l of labels.values()) {
    if (!isRelevantLead(q, l) || returned.has(l.id)) continue;
    const row = run.rows.get(l.id)!;
    if (!isIndexedLead(row)) {
      into.missedClassified++;
      continue;
    }
    const j = judgeLead(judged, cosineOfUnit(answer.vector, row.vector), postWords(row), floor);
    if (j.about) into.missedRetrieval++;
    else if (j.relevance < floor.floor) into.missedFloor++;
    else into.missedSubject++;
  }
}

/** Mean of the defined values; undefined when there are none. */
function mean(xs: readonly (number | undefined)[]): number | undefined {
  const ok = xs.filter((x): x is number => x !== undefined);
  return ok.length === 0 ? undefined : ok.reduce((s, x) => s + x, 0) / ok.length;
}

interface EncoderResult {
  label: string;
  judged: JudgedAnswer[];
  reachable: number[];
  failures: Failures;
  classification: { labelledLeads: number; indexedAsLead: number; indexedLeads: number; labelledAmongThem: number };
}

async function evaluate(
  encoder: LocalEncoderName,
  queries: readonly LeadQuery[],
  labels: ReadonlyMap<string, LeadLabel>,
  posts: Parameters<typeof leadsAnswers>[0],
): Promise<EncoderResult> {
  const run = await leadsAnswers(
    posts,
    queries.map((q) => q.query),
    encoder,
    { limit: LIMIT, minScore: undefined },
  );
  const failures: Failures = {
    returnedNotLead: 0,
    returnedOtherTarget: 0,
    missedClassified: 0,
    missedFloor: 0,
    missedSubject: 0,
    missedRetrieval: 0,
  };
  const judged = queries.map((q, i) => judgeAnswer(q, run.answers[i]!.ids, labels));
  queries.forEach((q, i) => failuresOf(q, run.answers[i]!, run, labels, failures));
  const reachable = queries.map(
    (q) => [...labels.values()].filter((l) => isRelevantLead(q, l) && isIndexedLead(run.rows.get(l.id)!)).length,
  );
  const all = [...labels.values()];
  const leads = all.filter(isLead);
  const indexedLeads = all.filter((l) => isIndexedLead(run.rows.get(l.id)!));
  return {
    label: ENCODER_MODELS[encoder].label,
    judged,
    reachable,
    failures,
    classification: {
      labelledLeads: leads.length,
      indexedAsLead: leads.filter((l) => isIndexedLead(run.rows.get(l.id)!)).length,
      indexedLeads: indexedLeads.length,
      labelledAmongThem: indexedLeads.filter(isLead).length,
    },
  };
}

function summaryRow(r: EncoderResult, ctx: EvalContext): string[] {
  const withResults = r.judged.filter((j) => j.returned > 0);
  const p = mean(r.judged.map((j) => j.precision));
  const noLead = r.judged.filter((j) => j.relevantInSet === 0);
  const emptyRight = noLead.filter((j) => j.returned === 0).length;
  const emptyWrong = r.judged.filter((j) => j.relevantInSet > 0 && j.returned === 0).length;
  const returned = r.judged.reduce((s, j) => s + j.returned, 0);
  const relevant = r.judged.reduce((s, j) => s + j.relevantReturned, 0);
  ctx.recordGoal(
    `FindLeads precision@10 on 30 written queries, judged by the lead labels (${r.label}) >= 0.70`,
    p === undefined ? "no query returned a lead" : `${fmt(p)} over ${withResults.length} queries with results`,
    p !== undefined && p >= 0.7,
  );
  ctx.recordGoal(
    `FindLeads empty where the lead labels hold no lead for the query (${r.label})`,
    `${emptyRight} of ${noLead.length}`,
    emptyRight === noLead.length,
  );
  return [
    r.label,
    String(withResults.length),
    p === undefined ? "-" : fmt(p),
    `${relevant} / ${returned}`,
    `${emptyRight} of ${noLead.length}`,
    `${emptyWrong} of ${r.judged.length - noLead.length}`,
  ];
}

function failureRow(r: EncoderResult): string[] {
  const f = r.failures;
  const c = r.classification;
  return [
    r.label,
    String(f.returnedNotLead),
    String(f.returnedOtherTarget),
    String(f.missedClassified),
    String(f.missedFloor),
    String(f.missedSubject),
    String(f.missedRetrieval),
    `${c.indexedAsLead} of ${c.labelledLeads}`,
    `${c.labelledAmongThem} of ${c.indexedLeads}`,
  ];
}

/** The FindLeads precision section. */
export const leadsPrecisionSection: EvalSection = {
  id: "leads-precision",
  title: "FindLeads precision against the lead labels",
  method:
    "The 1,600 hand-labelled posts of leads.tsv (all splits) are indexed into a fresh LanceDB index through ingest's write path, and FindLeads is asked 30 queries written before any result was seen (ten each for products, services and switches away from a named product), limit 10 and the API's default min_score. A returned post is relevant when it is labelled a lead and its labelled target product is one of the query's written accepted values; precision@10 is relevant returned over returned, averaged over the queries that returned anything. Queries the labelled set holds no lead for should come back empty.",
  decisions: ["0034-leads-precision-against-labels.md", "0016-absolute-lead-relevance.md"],
  requires: LABELLED_CORPORA.map(([file]) => file),
  async run(ctx) {
    const queries = loadLeadQueries();
    const all = loadLeadLabels();
    const labels = new Map(all.map((l): [string, LeadLabel] => [l.id, l]));
    const posts = await labelledPosts(all.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
    ctx.recordData("Lead labels indexed for FindLeads precision", posts.length, "all splits of leads.tsv");
    ctx.recordData("FindLeads queries written before results", queries.length, "leads-queries.tsv");
    const results: EncoderResult[] = [];
    const skipped: string[] = [];
    for (const e of ENCODERS) {
      try {
        results.push(await evaluate(e, queries, labels, posts));
      } catch (err) {
        if (!(err instanceof MiniLmFilesError)) throw err;
        skipped.push(`${ENCODER_MODELS[e].label}: ${missingBackend("minilm", err.message)}`);
      }
    }
    const perQuery = queries.map((q, i) => [
      q.id,
      q.query,
      String(results[0]?.judged[i]?.relevantInSet ?? "-"),
      ...results.flatMap((r) => {
        const j = r.judged[i]!;
        return [
          String(r.reachable[i]),
          `${j.relevantReturned} / ${j.returned}`,
          j.precision === undefined ? "empty" : fmt(j.precision, 2),
        ];
      }),
    ]);
    return [
      "Precision@10 is relevant returned over returned (at most 10), so an answer of 2 leads, both",
      "relevant, scores 1; a query with fewer relevant labelled leads than it returns cannot reach 1.",
      "The index holds only labelled posts, so every returned post is judged. Relevant = labelled a lead",
      "(any lead type) with a target product among the query's accepted values (leads-queries.tsv).",
      "",
      table(
        [
          "encoder",
          "queries with results",
          "mean precision@10",
          "relevant / returned (all queries)",
          "no-lead queries answered empty",
          "queries with relevant leads answered empty",
        ],
        results.map((r) => summaryRow(r, ctx)),
      ),
      "",
      ...skipped.map((s) => `Not run: ${s}`),
      "Where the posts were lost, over all 30 queries. Returned but wrong: labelled no lead (the ingest",
      "classifier called it one), or a lead for another target (judged about the query wrongly). Relevant",
      "but not returned: not a lead at the default min_score in the index (classification), under the",
      "relevance floor, over the floor but failing the subject rule, or judged about the query yet not",
      "returned (not among the hybrid candidates, or ranked past the page). The last two columns are the",
      "lead classification over the whole labelled set at the default min_score.",
      "",
      table(
        [
          "encoder",
          "returned, not a lead",
          "returned, other target",
          "missed: classification",
          "missed: floor",
          "missed: subject rule",
          "missed: retrieval or rank",
          "labelled leads indexed as leads",
          "indexed leads labelled leads",
        ],
        results.map(failureRow),
      ),
      "",
      "Per query: relevant leads in the labelled set; per encoder, how many of them the index holds as",
      "leads at the default min_score (the most FindLeads can find), relevant / returned, and precision.",
      "",
      table(
        [
          "id",
          "query",
          "relevant in labels",
          ...results.flatMap((r) => [`${r.label} reachable`, `${r.label} relevant / returned`, `${r.label} P@10`]),
        ],
        perQuery,
      ),
    ].join("\n");
  },
};
