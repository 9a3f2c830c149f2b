/**
 * `threadsight reenrich` on both backends: real sample posts are ingested with the real CLI and
 * given a topic model, then their enrichment is overwritten with wrong values (as an older
 * classifier would have left it); reenrich, run as a child process, must restore what the
 * enricher computes from the stored vectors, leave vectors and the other fields alone, keep the
 * trend rollups equal to the posts, and find nothing to change on a second run.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { loadConfig } from "../../src/config.js";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { openTrendStore } from "../../src/index/open-trend-store.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import type { ScannedPost } from "../../src/topics/trend-store.js";
import { CORPORA, corporaSkip, rebuildTopics, runCli, seedSample } from "../harness/seed.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-reenrich-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLE = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 80 },
  { file: "stackexchange_startups/startups_se_questions.jsonl", limit: 60 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 60 },
];

const ENRICHMENT = [
  "sentiment",
  "sentimentScore",
  "leadType",
  "leadScore",
  "painPoint",
  "opportunity",
  "industry",
  "targetProduct",
  "topicId",
] as const;

function enrichmentOf(p: EnrichedPost): Record<string, unknown> {
  return Object.fromEntries(ENRICHMENT.map((k) => [k, typeof p[k] === "number" ? Math.fround(p[k]) : p[k]]));
}

function withoutEnrichment(p: EnrichedPost): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...p };
  for (const k of ENRICHMENT) delete rest[k];
  return rest;
}

async function scanAll(env: Record<string, string>): Promise<ScannedPost[]> {
  const store = await openTrendStore(loadConfig(env));
  try {
    const out: ScannedPost[] = [];
    for await (const batch of store.scanVectors(64)) out.push(...batch);
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  } finally {
    await store.close();
  }
}

async function reenrichRoundTrip(env: Record<string, string>): Promise<void> {
  await seedSample(env, SAMPLE);
  await rebuildTopics(env);
  const config = loadConfig(env);
  const scanned = await scanAll(env);
  const ids = scanned.map((p) => p.id);
  assert.ok(ids.length >= 150, `sample ingested (${ids.length} posts)`);

  const index = await openSearchIndex(config);
  let ingested: EnrichedPost[];
  try {
    await index.open(USE_MODEL_ID, 512);
    ingested = await index.get(ids);
    // What an older classifier could have left: everything wrong, written through the same upsert.
    const stale: IndexedPost[] = ingested.map((p, i) => ({
      ...p,
      sentiment: p.sentiment === "negative" ? "positive" : "negative",
      sentimentScore: p.sentiment === "negative" ? 0.9 : -0.9,
      leadType: "",
      leadScore: 0,
      painPoint: "",
      opportunity: "",
      industry: "old",
      targetProduct: "",
      topicId: "",
      vector: scanned[i]!.vector,
    }));
    const res = await index.upsert(stale);
    assert.equal(res.failed.length, 0);
  } finally {
    await index.close();
  }

  // The reference: the ingest enricher over the stored vectors, with the topic model now in place.
  const enricher = await createIngestEnricher(config.dataDir, { model: USE_MODEL_ID, dimensions: 512 });
  const expected = await enricher.enrich(
    ingested,
    scanned.map((p) => p.vector),
  );
  await enricher.close();
  assert.ok(
    expected.some((p) => p.leadType !== ""),
    "the sample holds leads",
  );
  assert.ok(
    expected.some((p) => p.topicId !== ""),
    "posts get topics",
  );

  const run = await runCli(["reenrich", "--batch-size", "64"], env);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(`reenrich summary: ${ids.length} posts re-enriched, ${ids.length} changed and written, 0 refused`),
  );
  assert.match(run.stdout, /lead_type: .*\(none\) \d+/);
  assert.match(run.stderr, new RegExp(`reenrich: ${ids.length}/${ids.length} posts \\(100.0%\\)`));

  const after = await openSearchIndex(config);
  const store = await openTrendStore(config);
  try {
    await after.open(USE_MODEL_ID, 512);
    const stored = await after.get(ids);
    assert.deepEqual(
      stored.map(enrichmentOf),
      expected.map(enrichmentOf),
      "enrichment is what the enricher computes from the stored vectors",
    );
    // Sentiment and lead fields are those ingest wrote before they were overwritten.
    const noTopic = (p: EnrichedPost): Record<string, unknown> => ({ ...enrichmentOf(p), topicId: "" });
    assert.deepEqual(stored.map(noTopic), ingested.map(noTopic));
    assert.deepEqual(stored.map(withoutEnrichment), ingested.map(withoutEnrichment), "the other fields are untouched");
    const rescanned = await scanAll(env);
    assert.deepEqual(
      rescanned.map((p) => [p.id, Array.from(p.vector)]),
      scanned.map((p) => [p.id, Array.from(p.vector)]),
      "vectors are untouched",
    );
    const total = await store.rollupsFresh();
    assert.ok(total !== undefined, "rollups count every post");
    assert.equal(total.count, ids.length);
    const sum = stored.reduce((s, p) => s + p.sentimentScore, 0);
    assert.ok(Math.abs(total.sentimentSum - sum) < 1e-3, `rollup sentiment sum ${total.sentimentSum} = posts' ${sum}`);
  } finally {
    await store.close();
    await after.close();
  }

  const again = await runCli(["reenrich"], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`${ids.length} posts re-enriched, 0 changed and written`));
  assert.deepEqual(
    readdirSync(config.dataDir).filter((f) => f.startsWith("reenrich-")),
    [],
    "the spill file is removed",
  );
}

test("reenrich --batch-size rejects bad values with exit 2", async () => {
  const res = await runCli(["reenrich", "--batch-size", "0"], { THREADSIGHT_DATA_DIR: path.join(dir, "usage") });
  assert.equal(res.code, 2);
  assert.match(res.stderr, /--batch-size must be a whole number between 1 and 10000, got "0"/);
});

test("LanceDB: reenrich restores the enrichment from stored vectors and keeps rollups right", {
  skip: corporaSkip(),
  timeout: 600_000,
}, async () => {
  assert.ok(existsSync(CORPORA));
  await reenrichRoundTrip({ THREADSIGHT_DATA_DIR: path.join(dir, "lancedb"), WEAVIATE_URL: "", EMBEDDINGS_URL: "" });
});

test("Weaviate: reenrich restores the enrichment from stored vectors and keeps rollups right", {
  skip: corporaSkip() || weaviateSkipReason() || false,
  timeout: 600_000,
}, async () => {
  const server = await startWeaviate();
  try {
    await reenrichRoundTrip({
      THREADSIGHT_DATA_DIR: path.join(dir, "weaviate"),
      WEAVIATE_URL: server.httpUrl,
      WEAVIATE_GRPC_URL: server.grpcUrl,
      WEAVIATE_COLLECTION: `Reenrich${process.pid}`,
      EMBEDDINGS_URL: "",
    });
  } finally {
    await server.stop();
  }
});
