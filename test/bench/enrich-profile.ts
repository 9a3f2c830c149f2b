/**
 * Where ingest enrichment's main-thread time goes, per post: the ingest enricher over real posts
 * with their stored vectors (the kept embedded index), timed as a whole and per part (sentiment,
 * leads, topic). CPU time of this thread, so a busy machine changes little. Run:
 *   node --import tsx test/bench/enrich-profile.ts [posts]
 */
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { createLeadClassifier } from "../../src/enrich/leads/classifier.js";
import { createPostEnricher, sentimentText } from "../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { fromRow, POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { BENCH_DIR } from "./results-store.js";
import { toVector } from "./stored-vectors.js";

const n = Number(process.argv[2] ?? 4000);
const db = await lancedb.connect(LanceDbIndex.dirFor(path.join(BENCH_DIR, "lancedb-full")));
const t = await db.openTable(POSTS_TABLE);
const rows = (await t
  .query()
  .select([...POST_COLUMNS, "vector"])
  .limit(n)
  .toArray()) as Record<string, unknown>[];
t.close();
db.close();
const posts = rows.map((r) => fromRow(r));
const vectors = rows.map((r) => toVector(r.vector));

const cpuMs = (f: () => void): number => {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const sentiment = createSentimentClassifier();
const leads = createLeadClassifier();
const enricher = createPostEnricher({ sentiment, leads });
// One pass to warm the JIT, then the timed passes.
await enricher.enrich(posts, vectors);
const results = posts.map((p, i) => sentiment.classifyOne(sentimentText(p), vectors[i]!));
const sMs = cpuMs(() => posts.forEach((p, i) => sentiment.classifyOne(sentimentText(p), vectors[i]!)));
const lMs = cpuMs(() => posts.forEach((p, i) => leads.classify(p, vectors[i]!, results[i]!)));
const c0 = process.cpuUsage();
await enricher.enrich(posts, vectors);
const c = process.cpuUsage(c0);
const per = (ms: number): string => `${((1000 * ms) / posts.length).toFixed(0)} us/post`;
console.log(
  `${posts.length} posts: enrich ${per((c.user + c.system) / 1000)}; sentiment ${per(sMs)}, leads ${per(lMs)}`,
);
