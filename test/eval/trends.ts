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
import type { TopicModel } from "../../src/topics/topic-model.js";
import { hasTheme, MIN_LABEL_COVERAGE } from "../../src/topics/topic-model.js";
import type { TrendStore } from "../../src/topics/trend-store.js";
import { makePost } from "../index/synthetic.js";
import { allItems } from "../ingest/corpora.js";
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

/**
 * The markdown of the trends section: per corpus, one table with the top `top` trends of each
 * period (rank, label, trending keywords, posts, growth, score). Periods without posts are listed
 * as such. `topics` gives the labels (the model built from the same index).
 */
export async function renderTrends(
  store: TrendStore,
  topics: () => Promise<TopicModel | undefined>,
  corpora: readonly TrendCorpusPeriods[],
  top = 5,
): Promise<string> {
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
  return parts.join("\n\n");
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
async function trendVectors(posts: readonly Post[]): Promise<Float32Array[]> {
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
    const body = await renderTrends(store, async () => model, periods);
    const clusters = opts.k ? `k = ${opts.k}` : "k = sqrt(n/2) capped 20..200";
    const source = process.env[VECTOR_INDEX_ENV]
      ? ` (vectors as the ingest computed them, read from a kept index: ${VECTOR_INDEX_ENV})`
      : "";
    const fitted = opts.fitSample ? `, fitted on ${opts.fitSample.toLocaleString("en-US")} sampled posts` : "";
    const themeless = (model?.topics ?? []).filter((t) => !hasTheme(t));
    const setAside = themeless.map((t) => `"${t.label}" (${((t.labelCoverage ?? 0) * 100).toFixed(1)}%)`).join(", ");
    return [
      `Topics: ${report.model.topics.length} clusters (spherical k-means, ${clusters}, seed 42${fitted}) over ${report.posts} posts`,
      `embedded with the bundled sentence encoder${source}; labels are each cluster's top c-TF-IDF keywords,`,
      "counted in the cluster's posts that use them (2026-11-28: before, in occurrences, so a post repeating a word could name its topic).",
      `Catch-all clusters, whose three label words fewer than ${MIN_LABEL_COVERAGE * 100}% of their posts use, are no theme and are left out of`,
      `the ranking (2026-11-28): ${themeless.length} of ${report.model.topics.length} here${setAside === "" ? "" : `, ${setAside}`}.`,
      "The clustering takes the posts in id order with greedy k-means++ seeds, so every run finds the same topics",
      "(2026-11-24: before, it took them in LanceDB's scan order, and the topics and their labels changed from run to run).",
      "Each period lists",
      "its top 5 topics by trend_score with the keywords most over-represented against the previous period and the",
      "topic's background (log-odds, informative Dirichlet prior), counted in posts (up to the 100 most engaged",
      "per topic and period), so a keyword needs two posts that use it and a topic of one post shows none.",
      "Keywords are ranked by that log-odds z times the term's inverse document frequency over all the posts the",
      "topics were built from (2026-11-25: before, by z alone, which favours words common in the topic, and small",
      'windows listed words such as "create, simple, mean"). Measured once with the wordfreq package (PyPI, general',
      "English): keywords among the most common English words (Zipf frequency >= 5) went from 0.24 to 0.16 of this",
      "evaluation's Hacker News keywords and from 0.45 to 0.21 of its reddit ones, from 0.46 to 0.29 over 1,359",
      "trends of the 92,912-post service index (every month and quarter, 10 trends each).",
      "The corpora's first periods have no earlier data: their trend_score has no acceleration term (z = 0),",
      "and their first months or quarters rank by volume and engagement alone (2026-11-23: before, they were",
      "read as rising from nothing and every topic scored ~97). The periods after them have one to three",
      "earlier periods of history, whose spread says little, so their acceleration counts k/4 of itself",
      "(2026-11-24: before, Hacker News 2015-10 to 2015-12 topped the table at 84, 75 and 73).",
      "",
      body,
    ].join("\n");
  } finally {
    await store.close();
    await index.close();
    rmSync(root, { recursive: true, force: true });
  }
}
