/**
 * `threadsight reembed` on both backends, with the real encoders (USE-lite and all-MiniLM-L6-v2)
 * and real sample posts ingested by the real CLI: a run is interrupted after two batches and
 * resumed; while it runs another sample file is ingested (the old encoder, into the old copy);
 * searches answer from the old vectors, unchanged, until the switch. Afterwards the index must
 * equal a fresh MiniLM ingest of the same posts (same top ids, same vectors, same enrichment),
 * the topic model must have moved to the new vectors, and an ingest still configured for USE-lite
 * must stop at start-up naming EMBEDDINGS_MODEL, both models and the command to run.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { loadConfig } from "../../src/config.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { queryEmbeddingText } from "../../src/enrich/embed-text.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { defaultMiniLmDirectory, MINILM_FILES, MINILM_MODEL_ID } from "../../src/enrich/minilm/minilm-files.js";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { openShadowCopy } from "../../src/index/shadow-copy.js";
import { checkpointScope } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { IndexedPost } from "../../src/model/post.js";
import type { ReembedProgress } from "../../src/reembed/reembed.js";
import { reembedIndex } from "../../src/reembed/reembed.js";
import { ReembedCheckpointFile } from "../../src/reembed/reembed-checkpoint.js";
import { loadTopicModel, topicModelPath } from "../../src/topics/model-file.js";
import { missingBackend } from "../harness/backend-policy.js";
import { CORPORA, corporaSkip, rebuildTopics, runCli, runIngest, seedSample } from "../harness/seed.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-reembed-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const MINILM_DIR = process.env.EMBEDDINGS_MODEL_DIR ?? defaultMiniLmDirectory();
const minilmSkip =
  existsSync(path.join(MINILM_DIR, MINILM_FILES.weights.name)) &&
  existsSync(path.join(MINILM_DIR, MINILM_FILES.tokenizer.name))
    ? false
    : missingBackend("minilm", `no model files in ${MINILM_DIR} (bash scripts/install-minilm.sh)`);

/** Indexed before the reembed. */
const SAMPLE = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 50 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 40 },
];
/** Ingested while the reembed runs (posts of every date, before and after its cursor). */
const DURING = { file: "stackexchange_startups/startups_se_questions.jsonl", limit: 30 };
const BATCH = 16;
const QUERIES = [
  "how do I find my first customers",
  "raising a seed round from angel investors",
  "hiring a technical cofounder",
  "pricing a SaaS product",
];

/** The embedder, counting the texts it embeds and running `hook` before call `n`. */
function watched(inner: Embedder, hook?: (call: number) => Promise<void>): Embedder & { texts: number; calls: number } {
  const w = {
    model: inner.model,
    dimensions: inner.dimensions,
    texts: 0,
    calls: 0,
    async embed(texts: readonly string[], signal?: AbortSignal) {
      w.calls += 1;
      await hook?.(w.calls);
      w.texts += texts.length;
      return inner.embed(texts, signal);
    },
    close: () => inner.close(),
  };
  return w;
}

/** Top ids of each query, by vector and by hybrid search. */
async function topIds(index: SearchIndex, embedder: Embedder): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) {
    const [vector] = await embedder.embed([queryEmbeddingText(q)]);
    out.push((await index.nearVector({ vector: vector!, limit: 8, offset: 0 })).map((h) => h.post.id));
    out.push((await index.hybrid({ text: q, vector: vector!, alpha: 0.5, limit: 8, offset: 0 })).map((h) => h.post.id));
  }
  return out;
}

async function allIds(index: SearchIndex): Promise<string[]> {
  const ids: string[] = [];
  let after: { created: number; id: string } | undefined;
  for (;;) {
    const page = await index.scan({ limit: 1000, ...(after ? { after } : {}) });
    ids.push(...page.map((p) => p.id));
    if (page.length < 1000) break;
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
  }
  return ids.sort();
}

async function scenario(env: Record<string, string>, freshEnv: Record<string, string>): Promise<void> {
  await seedSample(env, SAMPLE);
  await rebuildTopics(env);
  const useConfig = loadConfig(env);
  const miniEnv = { ...env, EMBEDDINGS_MODEL: "all-minilm-l6-v2" };
  const miniConfig = loadConfig(miniEnv);
  const use = await createEmbedder(useConfig);
  const mini = await createEmbedder(miniConfig);
  // What a MiniLM ingest computes for a post: the reembed enriches every post it writes with it.
  const enricher = await createIngestEnricher(miniConfig.dataDir, mini, { topics: false });
  // A reader as the server holds it: opened before the reembed, searching with USE-lite.
  const reader = await openSearchIndex(useConfig, { serving: true });
  let original: IndexedPost[] = [];
  try {
    await reader.open(USE_MODEL_ID, 512);
    const total = await reader.count();
    assert.ok(total >= 80, `sample ingested (${total} posts)`);
    const before = await topIds(reader, use);
    original = await reader.getIndexed(await allIds(reader));
    const scope = checkpointScope(miniConfig);
    const checkpoints = new ReembedCheckpointFile(miniConfig.dataDir, scope);
    const target = { embeddingModel: MINILM_MODEL_ID, dimensions: 384 };

    // 1. Interrupted after its second stored batch.
    const controller = new AbortController();
    const first = watched(mini);
    const copies1 = await openShadowCopy(miniConfig, target);
    await assert.rejects(
      reembedIndex(copies1, first, checkpoints, {
        batch: BATCH,
        scope,
        enricher,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.phase === "copy" && p.done >= 2 * BATCH) controller.abort(new Error("interrupted by the test"));
        },
      }),
      /interrupted by the test/,
    );
    await copies1.close();
    assert.equal(first.texts, 2 * BATCH, "two batches embedded before the interruption");
    assert.equal((await checkpoints.load())?.done, 2 * BATCH, "the checkpoint records both batches");
    assert.deepEqual(await topIds(reader, use), before, "searches answer from the old vectors meanwhile");

    // 2. Resumed; during its copy pass another file is ingested with USE-lite into the old copy.
    let during: Promise<void> | undefined;
    const progress: ReembedProgress[] = [];
    const second = watched(mini, async (call) => {
      if (call !== 2) return;
      assert.deepEqual(await topIds(reader, use), before, "searches answer from the old vectors during the run");
      during = runIngest([path.join(CORPORA, DURING.file), "--limit", String(DURING.limit)], env).then((r) => {
        assert.ok(r.code === 0 || r.code === 3, r.stderr);
      });
      await during;
    });
    const copies2 = await openShadowCopy(miniConfig, target);
    const report = await reembedIndex(copies2, second, checkpoints, {
      batch: BATCH,
      scope,
      enricher,
      onProgress: (p) => void progress.push(p),
      topicModelFile: topicModelPath(miniConfig.dataDir),
    });
    await copies2.close();
    await during;
    assert.equal(report.resumedAt, 2 * BATCH, "resumed after the stored batches");
    assert.ok(report.caughtUp >= DURING.limit - 5, `posts ingested meanwhile were caught up (${report.caughtUp})`);
    assert.equal(progress[0]?.phase, "copy");
    assert.equal(progress[0]?.done, 3 * BATCH, "progress counts on from the checkpoint");
    assert.ok(
      progress.some((p) => p.phase === "switch"),
      "a last pass before the switch",
    );
    assert.equal(await checkpoints.load(), undefined, "the checkpoint is removed");

    // 3. The index now holds MiniLM vectors of every post, old and ingested meanwhile.
    const now = await openSearchIndex(miniConfig);
    const fresh = await (async () => {
      await seedSample(freshEnv, [...SAMPLE, DURING]);
      const f = await openSearchIndex(loadConfig(freshEnv));
      await f.open(MINILM_MODEL_ID, 384);
      return f;
    })();
    try {
      const info = await now.open(MINILM_MODEL_ID, 384);
      assert.equal(info.embeddingModel, MINILM_MODEL_ID);
      const ids = await allIds(now);
      assert.deepEqual(ids, await allIds(fresh), "every post is there, none lost");
      assert.equal(report.posts, ids.length);
      assert.deepEqual(await topIds(now, mini), await topIds(fresh, mini), "results equal a fresh MiniLM ingest");
      const mine = await now.getIndexed(ids);
      const theirs = await fresh.getIndexed(ids);
      for (let i = 0; i < ids.length; i++) {
        const a = mine[i]!;
        const b = theirs[i]!;
        let dot = 0;
        for (let d = 0; d < 384; d++) dot += a.vector[d]! * b.vector[d]!;
        assert.ok(dot > 0.9999, `${a.id}: the vector is MiniLM's (cosine ${dot})`);
        const enrichment = (p: typeof a) => [p.sentiment, p.leadType, p.painPoint, p.targetProduct, p.industry];
        assert.deepEqual(enrichment(a), enrichment(b), `${a.id}: enrichment as a MiniLM ingest computes it`);
      }
      assert.ok(
        mine.some((p) => p.topicId !== ""),
        "topic ids are copied",
      );
    } finally {
      await now.close();
      await fresh.close();
    }
    const topics = await loadTopicModel(topicModelPath(miniConfig.dataDir));
    assert.equal(topics?.dimensions, 384, "the topic model moved to the new vectors");
    assert.ok((topics?.topics.length ?? 0) > 0);
    assert.equal(report.topics, topics?.topics.length);
  } finally {
    await reader.close().catch(() => {});
    await use.close();
    await enricher.close();
    await mini.close();
  }

  // 4. A process still configured for USE-lite stops at start-up and says what to do.
  const stale = await runIngest([path.join(CORPORA, DURING.file), "--limit", "3"], env);
  assert.equal(stale.code, 1, stale.stderr);
  assert.match(stale.stderr, /vectors of embedding model "all-minilm-l6-v2-384" \(384 dimensions\)/);
  assert.match(stale.stderr, /configured encoder is "use-lite-512" \(512 dimensions, EMBEDDINGS_MODEL=use-lite\)/);
  assert.match(stale.stderr, /Set EMBEDDINGS_MODEL=all-minilm-l6-v2 to use the index as it is/);
  assert.match(stale.stderr, /`threadsight reembed --model use-lite`/);
  // And with the new encoder configured there is nothing left to do.
  const again = await runCli(["reembed"], miniEnv);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /nothing to do: the index already holds vectors of "all-minilm-l6-v2-384"/);

  // 5. Back to USE-lite with the CLI: a second switch (Weaviate: now of the alias) restores the
  // vectors the index held at first.
  const back = await runCli(["reembed", "--model", "use-lite", "--batch", "64"], miniEnv);
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stderr, /reembed: copy \d+\/\d+ posts \(100\.0%\), \d+ posts\/s/);
  assert.match(back.stdout, /posts now hold vectors of use-lite-512/);
  assert.match(back.stdout, /next: set EMBEDDINGS_MODEL=use-lite and restart threadsight serve/);
  const restored = await openSearchIndex(loadConfig(env));
  try {
    await restored.open(USE_MODEL_ID, 512);
    const now = await restored.getIndexed(original.map((p) => p.id));
    assert.equal(now.length, original.length);
    for (let i = 0; i < now.length; i++) {
      let dot = 0;
      for (let d = 0; d < 512; d++) dot += now[i]!.vector[d]! * original[i]!.vector[d]!;
      assert.ok(dot > 0.9999, `${now[i]!.id}: the USE-lite vector is back (cosine ${dot})`);
    }
  } finally {
    await restored.close();
  }
}

test("reembed --batch and --model reject bad values with exit 2", async () => {
  const bad = await runCli(["reembed", "--batch", "0"], { THREADSIGHT_DATA_DIR: path.join(dir, "usage") });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--batch must be a whole number between 1 and 1000, got "0"/);
  const model = await runCli(["reembed", "--model", "bert"], { THREADSIGHT_DATA_DIR: path.join(dir, "usage") });
  assert.equal(model.code, 2);
  assert.match(model.stderr, /--model must be one of use-lite, all-minilm-l6-v2, got "bert"/);
});

test("LanceDB: reembed USE-lite -> MiniLM in place, resumable, losing no post ingested meanwhile", {
  skip: corporaSkip() || minilmSkip,
  timeout: 900_000,
}, async () => {
  await scenario(
    { THREADSIGHT_DATA_DIR: path.join(dir, "lancedb"), WEAVIATE_URL: "", EMBEDDINGS_URL: "" },
    {
      THREADSIGHT_DATA_DIR: path.join(dir, "lancedb-fresh"),
      WEAVIATE_URL: "",
      EMBEDDINGS_URL: "",
      EMBEDDINGS_MODEL: "all-minilm-l6-v2",
    },
  );
});

test("Weaviate: reembed USE-lite -> MiniLM in place, resumable, losing no post ingested meanwhile", {
  skip: corporaSkip() || minilmSkip || weaviateSkipReason() || false,
  timeout: 900_000,
}, async () => {
  const server = await startWeaviate();
  try {
    const weaviate = { WEAVIATE_URL: server.httpUrl, WEAVIATE_GRPC_URL: server.grpcUrl, EMBEDDINGS_URL: "" };
    await scenario(
      { ...weaviate, THREADSIGHT_DATA_DIR: path.join(dir, "weaviate"), WEAVIATE_COLLECTION: `Reembed${process.pid}` },
      {
        ...weaviate,
        THREADSIGHT_DATA_DIR: path.join(dir, "weaviate-fresh"),
        WEAVIATE_COLLECTION: `ReembedFresh${process.pid}`,
        EMBEDDINGS_MODEL: "all-minilm-l6-v2",
      },
    );
  } finally {
    await server.stop();
  }
});
