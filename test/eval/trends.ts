/**
 * The trends part of the evaluation: for each month of the Hacker News corpus (2015-09..2016-09)
 * and each quarter of the reddit 2013 corpus, the top 5 trends with their labels and trending
 * keywords, so a reader can check them against what happened at the time. There is no labelled
 * set for trends; this table is the evidence the issue asks for.
 *
 * `renderTrends(store, topics)` renders from any populated TrendStore (the lead's eval runner
 * can pass its own index); `trendsSection` builds one: both corpora read by the ingest readers,
 * embedded with the bundled sentence encoder (cached on disk), written to a temporary LanceDB
 * index, topics built by `rebuildTopics`, then rendered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { TrendsCore } from "../../src/core/trends.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { LanceDbTrendStore } from "../../src/index/lancedb/trends.js";
import type { IndexedPost, Post } from "../../src/model/post.js";
import { loadTopicModel } from "../../src/topics/model-file.js";
import { rebuildTopics } from "../../src/topics/rebuild.js";
import { postText, terms } from "../../src/topics/terms.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { hasTheme, MIN_LABEL_COVERAGE } from "../../src/topics/topic-model.js";
import type { TrendStore } from "../../src/topics/trend-store.js";
import { makePost } from "../index/synthetic.js";
import { allItems } from "../ingest/corpora.js";
import { BERTOPIC_NPMI, npmiByTopic } from "./coherence.js";
import { CACHE_MODEL, embedCached } from "./embedding-cache.js";
import { fmt, table } from "./format.js";
import type { EvalContext, EvalSection } from "./section.js";
import { dataPath } from "./shared-data.js";

/** Shared-data paths of the two corpora. */
export const HN_FILE = "corpora/hackernews_2015_2016/hacker_news.csv";
export const REDDIT_FILE = "corpora/reddit_top2013/submissions_top2013.ndjson.zst";

/** A named inclusive range of UTC days. */
export interface TrendPeriod {
  label: string;
  start: string;
  end: string;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Calendar months from `first` to `last` inclusive ("2015-09", "2016-09"). */
export function monthlyPeriods(first: string, last: string): TrendPeriod[] {
  const out: TrendPeriod[] = [];
  let [y, m] = first.split("-").map(Number) as [number, number];
  const [ly, lm] = last.split("-").map(Number) as [number, number];
  while (y < ly || (y === ly && m <= lm)) {
    out.push({
      label: `${y}-${String(m).padStart(2, "0")}`,
      start: iso(Date.UTC(y, m - 1, 1)),
      end: iso(Date.UTC(y, m, 0)),
    });
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  }
  return out;
}

/** Calendar quarters from the quarter holding `first` to the one holding `last` (epoch ms). */
export function quarterlyPeriods(first: number, last: number): TrendPeriod[] {
  const out: TrendPeriod[] = [];
  const d = new Date(first);
  let y = d.getUTCFullYear();
  let q = Math.floor(d.getUTCMonth() / 3);
  while (Date.UTC(y, 3 * q, 1) <= last) {
    out.push({ label: `${y} Q${q + 1}`, start: iso(Date.UTC(y, 3 * q, 1)), end: iso(Date.UTC(y, 3 * q + 3, 0)) });
    [y, q] = q === 3 ? [y + 1, 0] : [y, q + 1];
  }
  return out;
}

/** One corpus's periods for the table. */
export interface TrendCorpusPeriods {
  corpus: string;
  periods: TrendPeriod[];
}

/** Whether two of a period's trends share a trending keyword: one event told as two topics. */
export function splitEvent(trends: readonly { trendingKeywords: readonly string[] }[]): boolean {
  const seen = new Set<string>();
  for (const t of trends) {
    for (const k of new Set(t.trendingKeywords)) {
      if (seen.has(k)) return true;
    }
    for (const k of t.trendingKeywords) seen.add(k);
  }
  return false;
}

/**
 * The markdown of the trends section: per corpus, one table with the top `top` trends of each
 * period (rank, label, trending keywords, posts, growth, score). Periods without posts are listed
 * as such. `topics` gives the labels (the model built from the same index). Also counts the
 * periods whose listed trends share a trending keyword ({@link splitEvent}).
 */
export async function renderTrends(
  store: TrendStore,
  topics: () => Promise<TopicModel | undefined>,
  corpora: readonly TrendCorpusPeriods[],
  top = 5,
): Promise<{ markdown: string; periods: number; split: string[] }> {
  const split: string[] = [];
  let counted = 0;
  const core = new TrendsCore({ store, topics });
  const signal = new AbortController().signal;
  const parts: string[] = [];
  for (const { corpus, periods } of corpora) {
    const rows: string[][] = [];
    for (const p of periods) {
      const out = await core.list({ startDate: p.start, endDate: p.end, limit: top }, signal);
      if (out.trends.length === 0) {
        rows.push([p.label, "-", "(no posts)", "", "", "", ""]);
        continue;
      }
      counted++;
      if (splitEvent(out.trends)) split.push(p.label);
      out.trends.forEach((t, i) => {
        rows.push([
          i === 0 ? p.label : "",
          String(i + 1),
          t.label,
          t.trendingKeywords.join(", "),
          String(t.postCount),
          fmt(t.growthRate, 2),
          fmt(t.trendScore, 1),
        ]);
      });
    }
    parts.push(
      `### ${corpus}\n\n${table(["period", "#", "topic", "trending keywords", "posts", "growth", "score"], rows)}`,
    );
  }
  return { markdown: parts.join("\n\n"), periods: counted, split };
}

/** Every post of both corpora, through the ingest readers. */
export async function readTrendCorpora(): Promise<{ hackernews: Post[]; reddit: Post[] }> {
  const posts = async (file: string) =>
    (await allItems(dataPath(file))).flatMap((item) => ("post" in item ? [item.post] : []));
  return { hackernews: await posts(HN_FILE), reddit: await posts(REDDIT_FILE) };
}

/** A post with neutral enrichment (no topic yet) and the given vector, ready for an index. */
export function asIndexed(post: Post, vector: Float32Array): IndexedPost {
  return makePost({ ...post, vector });
}

/** The periods the issue asks for: HN monthly 2015-09..2016-09, reddit quarterly over its span. */
export function evaluationPeriods(reddit: readonly Post[]): TrendCorpusPeriods[] {
  const created = reddit.map((p) => p.created);
  return [
    { corpus: "Hacker News (monthly)", periods: monthlyPeriods("2015-09", "2016-09") },
    {
      corpus: "reddit top 2013 (quarterly)",
      periods: reddit.length === 0 ? [] : quarterlyPeriods(Math.min(...created), Math.max(...created)),
    },
  ];
}

/** The evaluation section: builds a LanceDB index of both corpora, topics, and the tables. */
export const trendsSection: EvalSection = {
  id: "trends",
  title: "Trending topics",
  method:
    "Both corpora clustered into topics (spherical k-means over the bundled encoder's vectors); each period lists its top topics by trend_score with the keywords most over-represented against the previous period. There are no labels: the tables are for reading.",
  decisions: ["0008-topics-people-recognise.md", "0009-trends-read-from-rollups.md"],
  requires: [HN_FILE, REDDIT_FILE],
  run: (ctx) => runTrendsEvaluation(ctx, { reddit: true }),
};

/**
 * Environment variable naming a LanceDB directory that already holds these posts embedded by the
 * same bundled encoder (e.g. the benchmark's kept index, ~/.cache/threadsight-bench/lancedb-full/lancedb):
 * their vectors are taken from it by post id, and only posts it lacks are embedded. On this shared
 * 2-core machine the encoder managed a few posts per second under load, hours for the corpora.
 */
export const VECTOR_INDEX_ENV = "THREADSIGHT_EVAL_VECTOR_INDEX";

/** Vectors of `posts`: from the index named by {@link VECTOR_INDEX_ENV} where it has them, else embedded (cached). */
export async function trendVectors(posts: readonly Post[]): Promise<Float32Array[]> {
  const dir = process.env[VECTOR_INDEX_ENV];
  const kept = new Map<string, Float32Array>();
  if (dir) {
    const db = await lancedb.connect(dir);
    const table = await db.openTable(POSTS_TABLE);
    try {
      const wanted = new Set(posts.map((p) => p.id));
      for await (const batch of table.query().select(["id", "vector"])) {
        const ids = batch.getChild("id")!;
        const vecs = batch.getChild("vector")!;
        for (let i = 0; i < batch.numRows; i++) {
          const id = String(ids.get(i));
          if (wanted.has(id)) kept.set(id, Float32Array.from((vecs.get(i) as { toArray(): Float32Array }).toArray()));
        }
      }
    } finally {
      table.close();
      db.close();
    }
    process.stderr.write(`trends: ${kept.size} of ${posts.length} vectors from ${dir}\n`);
  }
  const missing = posts.filter((p) => !kept.has(p.id));
  const embedded =
    missing.length > 0
      ? await embedCached(
          "trends",
          missing.map((p) => `${p.title}\n${p.content.slice(0, 1000)}`),
        )
      : [];
  missing.forEach((p, i) => kept.set(p.id, embedded[i]!));
  return posts.map((p) => kept.get(p.id)!);
}

/** Which corpora a trends evaluation covers, and the clustering's size. */
export interface TrendsEvaluationOptions {
  hackernews?: boolean;
  reddit: boolean;
  /** Topics (default: k = sqrt(n/2) capped 20..200). */
  k?: number;
  /** Posts the k-means is fitted on (default 20,000). */
  fitSample?: number;
}

/**
 * Builds the evaluation index and renders the tables. `reddit: false` evaluates Hacker News
 * alone (a quicker run: 20k short titles to embed instead of 80k posts); `hackernews: false`
 * evaluates reddit alone.
 */
export async function runTrendsEvaluation(ctx: EvalContext, opts: TrendsEvaluationOptions): Promise<string> {
  const corpora = await readTrendCorpora();
  const hackernews = opts.hackernews === false ? [] : corpora.hackernews;
  const reddit = opts.reddit ? corpora.reddit : [];
  if (hackernews.length > 0) ctx.recordData("Hacker News 2015-2016", hackernews.length, "trends: monthly top 5");
  if (opts.reddit) ctx.recordData("reddit top 2013", reddit.length, "trends: quarterly top 5");
  const all = [...hackernews, ...reddit];
  const vectors = await trendVectors(all);
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-eval-trends-"));
  const dir = LanceDbIndex.dirFor(root);
  const index = new LanceDbIndex({ dir });
  const store = new LanceDbTrendStore({ dir });
  try {
    await index.open(CACHE_MODEL, vectors[0]!.length);
    for (let i = 0; i < all.length; i += 2000)
      await index.upsert(all.slice(i, i + 2000).map((p, j) => asIndexed(p, vectors[i + j]!)));
    // The writer folds its rows into the indexes before the re-tag, as `threadsight ingest` has
    // closed before `topics rebuild` runs (one writer per directory): left open, its closing
    // compaction was planned on the table as it stood before the re-tag and failed to commit
    // ("Retryable commit conflict ... Rewrite preempted by Update").
    await index.close();
    await store.open();
    const file = path.join(root, "topics", "model.json");
    const report = await rebuildTopics(store, {
      file,
      seed: 42,
      ...(opts.k ? { k: opts.k } : {}),
      ...(opts.fitSample ? { fitSample: opts.fitSample } : {}),
    });
    const model = await loadTopicModel(file);
    const periods = evaluationPeriods(reddit).filter(
      (c) => c.periods.length > 0 && (hackernews.length > 0 || !c.corpus.startsWith("Hacker News")),
    );
    const rendered = await renderTrends(store, async () => model, periods);
    const clusters = opts.k ? `k = ${opts.k}` : "k = sqrt(n/2) capped 20..200";
    const source = process.env[VECTOR_INDEX_ENV]
      ? ` (vectors as the ingest computed them, read from a kept index: ${VECTOR_INDEX_ENV})`
      : "";
    const fitted = opts.fitSample ? `, fitted on ${opts.fitSample.toLocaleString("en-US")} sampled posts` : "";
    const topicsOf = model?.topics ?? [];
    const themeless = topicsOf.filter((t) => !hasTheme(t));
    const setAside = themeless.map((t) => `"${t.label}" (${((t.labelCoverage ?? 0) * 100).toFixed(1)}%)`).join(", ");
    const docs = all.map((p) => new Set(terms(postText(p.title, p.content))));
    const themed = topicsOf.filter(hasTheme);
    const npmi = npmiByTopic(
      themed.map((t) => t.keywords.slice(0, 10)),
      docs,
    ).filter((x) => !Number.isNaN(x));
    const meanNpmi = npmi.reduce((a, b) => a + b, 0) / Math.max(1, npmi.length);
    const published = BERTOPIC_NPMI.map((b) => `${b.corpus} ${fmt(b.npmi, 3)}`).join(", ");
    return [
      `Topics: ${report.model.topics.length} (spherical k-means, ${clusters}, seed 42${fitted}, near-duplicate clusters merged) over ${report.posts} posts`,
      `embedded with the bundled sentence encoder${source}. How the topics, labels and ranking are made, and why: docs/concepts/trends.md and docs/decisions/0008-topics-people-recognise.md.`,
      `Catch-all clusters (label words used by under ${MIN_LABEL_COVERAGE * 100}% of their posts) left out of the ranking: ${themeless.length} of ${topicsOf.length}${setAside === "" ? "" : `, ${setAside}`}.`,
      "",
      "| measure | value |",
      "| --- | --- |",
      `| coherence: mean NPMI of each themed topic's top 10 keywords, per post | ${fmt(meanNpmi, 3)} over ${npmi.length} topics (BERTopic's published NPMI, other corpora and 10-word windows: ${published}) |`,
      `| periods where two of the top 5 share a trending keyword (one event split, goal 0) | ${rendered.split.length} of ${rendered.periods}${rendered.split.length > 0 ? ` (${rendered.split.join(", ")})` : ""} |`,
      `| labels with a two-word phrase | ${themed.filter((t) => t.label.split(" · ").some((part) => part.includes(" "))).length} of ${themed.length} |`,
      "",
      rendered.markdown,
    ].join("\n");
  } finally {
    await store.close();
    await index.close();
    rmSync(root, { recursive: true, force: true });
  }
}
