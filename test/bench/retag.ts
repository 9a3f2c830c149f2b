/**
 * What a topic re-tag of every post does to searches on the embedded index: the posts of a
 * kept index get new topics through LanceDbTrendStore.setTopics, in the batches `topics rebuild`
 * uses, while a second connection (as the server holds one) runs a hybrid search every 100 ms
 * with stored post vectors as queries (no embedder: only the index is timed). Reported: the
 * re-tag's and close()'s wall time, search latency before, during the re-tag, between it and
 * close(), during close() and after, and every index's unindexed rows at the end.
 *
 * It rewrites topics in place: give it a scratch copy of a data directory whose posts have
 * topics (after `threadsight topics rebuild`), e.g. cp -r ~/.cache/threadsight-bench/lancedb-full
 * /tmp/retag. Each post moves to the next topic id in sorted order, so every post changes.
 *
 * Run: node --import tsx test/bench/retag.ts <scratch dataDir>
 */
import { connect } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { LanceDbTrendStore } from "../../src/index/lancedb/trends.js";
import { loadText, machineInfo } from "./machine.js";
import { fixed, median } from "./stats.js";
import { toVector } from "./stored-vectors.js";

/** `topics rebuild`'s default retagBatchSize. */
const RETAG_BATCH = 50_000;
const SEARCH_EVERY_MS = 100;
const SETTLE_MS = 3_000;

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: node --import tsx test/bench/retag.ts <scratch dataDir>");
const dir = LanceDbIndex.dirFor(dataDir);

const db = await connect(dir);
const table = await db.openTable(POSTS_TABLE);
const rows = (await table.query().select(["id", "topic_id", "title", "vector"]).toArray()) as Record<string, unknown>[];
const meta = await table.schema();
table.close();
db.close();
const topics = [...new Set(rows.map((r) => String(r.topic_id)))].sort();
if (topics.length < 2) throw new Error(`${dataDir}: its posts need topics (run threadsight topics rebuild first)`);
const nextTopic = new Map(topics.map((t, i) => [t, topics[(i + 1) % topics.length]!]));
const assignments = rows.map((r) => ({ id: String(r.id), topicId: nextTopic.get(String(r.topic_id))! }));
// A fixed spread of posts as queries: their titles for the keyword side, their vectors for the other.
const queries = Array.from({ length: 400 }, (_, i) => rows[(i * 7919) % rows.length]!).map((r) => ({
  text: String(r.title),
  vector: toVector(r.vector),
}));
const dims = queries[0]!.vector.length;
const model = meta.metadata.get("threadsight.embedding_model") ?? "";

const index = new LanceDbIndex({ dir, freshnessSeconds: 1 });
await index.open(model, dims);
let next = 0;
const search = async (): Promise<number> => {
  const q = queries[next++ % queries.length]!;
  const t0 = performance.now();
  await index.hybrid({
    text: q.text,
    vector: q.vector,
    alpha: 0.5,
    limit: 11,
    offset: 0,
    fields: "result",
    filter: {},
  });
  return performance.now() - t0;
};

type Phase = "before" | "re-tag" | "re-tag to close" | "close" | "after";
const latencies: Record<Phase, number[]> = { before: [], "re-tag": [], "re-tag to close": [], close: [], after: [] };
for (let i = 0; i < 10; i++) latencies.before.push(await search());

const machine = machineInfo();
const store = new LanceDbTrendStore({ dir });
await store.open();
let phase: Phase = "re-tag";
let stop = false;
const searching = (async () => {
  while (!stop) {
    const ms = await search();
    latencies[phase].push(ms);
    await new Promise((r) => setTimeout(r, SEARCH_EVERY_MS));
  }
})();
const t0 = performance.now();
for (let i = 0; i < assignments.length; i += RETAG_BATCH) await store.setTopics(assignments.slice(i, i + RETAG_BATCH));
const retagMs = performance.now() - t0;
phase = "re-tag to close";
await new Promise((r) => setTimeout(r, SETTLE_MS));
phase = "close";
const t1 = performance.now();
await store.close();
const closeMs = performance.now() - t1;
phase = "after";
await new Promise((r) => setTimeout(r, SETTLE_MS));
stop = true;
await searching;
await index.close();

const check = await connect(dir);
const after = await check.openTable(POSTS_TABLE);
const unindexed: string[] = [];
for (const entry of await after.listIndices())
  unindexed.push(`${entry.name} ${(await after.indexStats(entry.name))?.numUnindexedRows ?? "?"}`);
after.close();
check.close();

console.log(`${rows.length} posts, ${topics.length} topics, ${loadText(machine)}`);
console.log(
  `re-tag of every post (batches of ${RETAG_BATCH}): ${fixed(retagMs / 1000)} s; close(): ${fixed(closeMs / 1000)} s`,
);
console.log("hybrid search (limit 11) from a second connection, every 100 ms:");
for (const [name, ms] of Object.entries(latencies)) {
  if (ms.length > 0)
    console.log(
      `  ${name.padEnd(16)} ${String(ms.length).padStart(4)} searches, median ${fixed(median(ms))} ms, max ${fixed(Math.max(...ms))} ms`,
    );
}
console.log(`unindexed rows at the end: ${unindexed.join(", ")}`);
