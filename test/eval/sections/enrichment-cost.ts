/**
 * What enrichment costs at ingest, next to what embedding costs: the pipeline embeds every post
 * anyway, so enrichment must stay a small fraction of that (goal: ingest keeps >= 90% of the
 * embedder's throughput). Measured on real reddit posts with their real USE-lite vectors.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { postEmbeddingText } from "../../../src/enrich/embed-text.js";
import { createLeadClassifier } from "../../../src/enrich/leads/classifier.js";
import { createPostEnricher, sentimentText } from "../../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../../src/enrich/sentiment/classifier.js";
import { startUseEmbedder } from "../../../src/enrich/use-embedder.js";
import type { Post } from "../../../src/model/post.js";
import { redditPosts } from "../corpus-posts.js";
import { embedCached } from "../embedding-cache.js";
import { fmt, goal, table } from "../format.js";
import type { EvalContext, EvalSection } from "../section.js";

const SUBREDDITS = [
  "smallbusiness",
  "startups",
  "Entrepreneur",
  "marketing",
  "SEO",
  "sysadmin",
  "webdev",
  "techsupport",
  "freelance",
  "Etsy",
];
const SAMPLE = 1000;
const EMBED_SAMPLE = 200;
const REPEATS = 5;

function sample(): Post[] {
  const per = Math.ceil(SAMPLE / SUBREDDITS.length);
  return SUBREDDITS.flatMap((s) => {
    const all = redditPosts(s);
    const step = Math.max(1, Math.floor(all.length / per));
    return all.filter((_, i) => i % step === 0).slice(0, per);
  }).slice(0, SAMPLE);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeMs(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export const enrichmentCostSection: EvalSection = {
  id: "cost",
  title: "Enrichment cost at ingest",
  method:
    "Real reddit posts with precomputed vectors; enrichment (sentiment and leads) timed alone against the bundled embedder on the same posts, medians of several runs after a warm-up. The goal is about the ratio, which moves less than absolute times on a shared machine; the whole pipeline is measured in BENCHMARKS.md.",
  decisions: ["0007-ingest-ratio.md"],
  requires: SUBREDDITS.map((s) => `corpora/reddit_top2013/raw_csv/${s}.csv`),
  async run(ctx: EvalContext) {
    const posts = sample();
    ctx.recordData("Reddit posts for cost", posts.length, `${SUBREDDITS.length} subreddits, every k-th post`);
    const vectors = await embedCached("cost-sample", posts.map(postEmbeddingText));

    const sentiment = createSentimentClassifier();
    const leads = createLeadClassifier();
    const enricher = createPostEnricher({ sentiment, leads });
    await enricher.enrich(posts, vectors); // warm-up: JIT and regex compilation
    const perPost = (ms: number) => ms / posts.length;
    const sentimentMs = median(
      Array.from({ length: REPEATS }, () =>
        timeMs(() => posts.forEach((p, i) => sentiment.classifyOne(sentimentText(p), vectors[i]!))),
      ),
    );
    const tone = posts.map((p, i) => sentiment.classifyOne(sentimentText(p), vectors[i]!));
    const leadsMs = median(
      Array.from({ length: REPEATS }, () =>
        timeMs(() => posts.forEach((p, i) => leads.classify(p, vectors[i], tone[i]))),
      ),
    );
    const enrichRuns: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t = performance.now();
      await enricher.enrich(posts, vectors);
      enrichRuns.push(performance.now() - t);
    }
    const enrichMs = perPost(median(enrichRuns));

    const workers = Math.min(2, os.cpus().length);
    const embedder = await startUseEmbedder(workers);
    let embedMs: number;
    try {
      const texts = posts.slice(0, EMBED_SAMPLE).map(postEmbeddingText);
      await embedder.embed(texts.slice(0, 16));
      const t = performance.now();
      await embedder.embed(texts);
      embedMs = (performance.now() - t) / texts.length;
    } finally {
      await embedder.close();
    }
    const kept = embedMs / (embedMs + enrichMs);
    ctx.recordGoal(
      "enrichment alone leaves >= 90% of embedder throughput (the whole pipeline: docs/BENCHMARKS.md)",
      `${fmt(100 * kept, 1)}%`,
      kept >= 0.9,
    );
    return [
      table(
        ["step", "ms per post"],
        [
          ["sentiment (features + softmax)", fmt(perPost(sentimentMs), 3)],
          ["leads (lead model over the rules and embedding heads)", fmt(perPost(leadsMs), 3)],
          ["enrich() total (sentiment + leads)", fmt(enrichMs, 3)],
          [`embedding (USE-lite, ${workers} workers)`, fmt(embedMs, 2)],
        ],
      ),
      "",
      `- serial bound: ingest keeps ${fmt(100 * kept, 1)}% of the embedder's throughput (goal >= 90%): ${goal(kept >= 0.9)}`,
      `- pessimistic bound (embedding at 10 ms a post): ${fmt(100 * (10 / (10 + enrichMs)), 1)}%`,
      `- ${posts.length} posts, median of ${REPEATS} runs; embedding timed on ${EMBED_SAMPLE} of them with ${workers} worker threads; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    ].join("\n");
  },
};
