/**
 * The TrendStore contract, run against LanceDB and Weaviate: the same synthetic corpus is written
 * through each backend's SearchIndex adapter, and every store answer — and the whole ListTrends
 * outcome built on it — must equal what the trend oracle (trend-oracle.ts, which folds the posts
 * themselves) gives for the same posts. Stores read aggregates only from their rollups, so this
 * is also the check that the rollups stay exact: after a re-ingest that changes posts, a topic
 * rebuild that re-tags them, a writer that bypassed the rollups, and over an index written
 * without rollups at all (the last two are backfilled on read).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import type { TrendsOutcome } from "../../src/core/trends.js";
import { TrendsCore } from "../../src/core/trends.js";
import { RollupMaintainingIndex } from "../../src/index/rollup-index.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { loadTopicModel } from "../../src/topics/model-file.js";
import { rebuildTopics } from "../../src/topics/rebuild.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import type { TimeWindow, TrendStore } from "../../src/topics/trend-store.js";
import { DIMS, MODEL } from "../index/synthetic.js";
import { trendCorpus } from "./fixture.js";
import { TrendOracle } from "./trend-oracle.js";

/** What a backend provides to the contract. */
export interface TrendBackend {
  /** A SearchIndex over fresh, empty storage, not yet opened. */
  index: SearchIndex;
  /** A TrendStore over the same storage, not yet opened. */
  store: TrendStore;
  /** A TrendStore over storage that does not exist (no table / collection), not yet opened. */
  emptyStore: TrendStore;
  /** Optionally, the same store tuned to take its other code paths (e.g. tiny fetch sizes). */
  alternate?: TrendStore;
  /** A second store over the same storage (another process's view), not yet opened. */
  reader: TrendStore;
  cleanup(): Promise<void>;
}

const DAY = 86_400_000;
const signal = new AbortController().signal;

/** Numbers rounded to 9 significant decimals, so float sums from different engines compare equal. */
function normalise<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) =>
      typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v,
    ),
  ) as T;
}

function sortStats<T extends { topicId: string }>(xs: T[]): T[] {
  return [...xs].sort((a, b) => (a.topicId < b.topicId ? -1 : 1));
}

const WINDOWS: Record<string, TimeWindow> = {
  march: { from: Date.UTC(2024, 2, 1), to: Date.UTC(2024, 3, 1) - 1 },
  february: { from: Date.UTC(2024, 1, 1), to: Date.UTC(2024, 2, 1) - 1 },
  "one day": { from: Date.UTC(2024, 1, 14), to: Date.UTC(2024, 1, 15) - 1 },
  "whole corpus": { from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 3, 1) - 1 },
  "before any data": { from: Date.UTC(2023, 0, 1), to: Date.UTC(2023, 1, 1) - 1 },
};

/** Registers the contract suite for one backend. */
export function registerTrendStoreContract(name: string, setup: () => Promise<TrendBackend>, skip?: string): void {
  describe(`TrendStore contract: ${name}`, { skip }, () => {
    let backend: TrendBackend;
    let posts: IndexedPost[];
    let writer: RollupMaintainingIndex;
    const oracle = () => new TrendOracle(posts.map((p) => ({ ...p })));
    const modelDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-trend-contract-"));

    before(async () => {
      backend = await setup();
      posts = trendCorpus(true).posts;
      writer = new RollupMaintainingIndex(backend.index, backend.store);
      await writer.open(MODEL, DIMS);
      const res = await writer.upsert(posts);
      assert.deepEqual(res.failed, []);
      // The store reads the posts table through its own connection, which may lag the writer's
      // by the freshness interval; the first assertions expect rollups, so wait until they count.
      await eventually(async () => (await backend.store.rollupsFresh(signal)) !== undefined);
      await backend.emptyStore.open();
      await backend.alternate?.open();
      await backend.reader.open();
    });
    after(async () => {
      // The index first: it folds the last writes into its indexes (a compaction), and the
      // store's own compaction after a re-tag must come after it, not race it (the store's
      // close tolerates a lost race; the index's does not).
      await backend?.index.close();
      await writer?.close();
      await backend?.emptyStore.close();
      await backend?.alternate?.close();
      await backend?.reader.close();
      await backend?.cleanup();
      rmSync(modelDir, { recursive: true, force: true });
    });

    it("reports the newest post's time, and nothing for missing storage", async () => {
      assert.equal(await backend.store.latestCreated(signal), await oracle().latestCreated());
      assert.equal(await backend.emptyStore.latestCreated(signal), undefined);
      assert.deepEqual(await backend.emptyStore.aggregateByTopic(WINDOWS.march!, signal), []);
      assert.deepEqual(await backend.emptyStore.topPosts(["seo"], WINDOWS.march!, 5, signal), new Map([["seo", []]]));
    });

    for (const [label, window] of Object.entries(WINDOWS)) {
      it(`aggregates per topic like the oracle: ${label}`, async () => {
        const got = sortStats(await backend.store.aggregateByTopic(window, signal));
        const want = sortStats(await oracle().aggregateByTopic(window));
        assert.deepEqual(normalise(got), normalise(want));
        if (label === "before any data") assert.deepEqual(got, []);
      });
    }

    it("counts per topic and bucket like the oracle (baselines), including empty and short buckets", async () => {
      for (const [range, bucket] of [
        [{ from: Date.UTC(2023, 11, 1), to: Date.UTC(2024, 2, 1) - 1 }, 7 * DAY],
        [{ from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 3, 1) - 1 }, 30 * DAY],
        [{ from: Date.UTC(2024, 1, 14), to: Date.UTC(2024, 1, 15) - 1 }, DAY],
      ] as const) {
        const got = Object.fromEntries(await backend.store.countsByTopicAndBucket(range, bucket, signal));
        const want = Object.fromEntries(await oracle().countsByTopicAndBucket(range, bucket));
        assert.deepEqual(got, want);
      }
    });

    it("gives a window's aggregates and baselines in one call like the oracle", async () => {
      for (const [window, buckets] of [
        [WINDOWS.march!, 8],
        [WINDOWS["one day"]!, 8],
        [WINDOWS.february!, 0],
        [WINDOWS["whole corpus"]!, 3],
        [WINDOWS["before any data"]!, 8],
      ] as const) {
        const got = await backend.store.trendInputs(window, buckets, signal);
        const want = await oracle().trendInputs(window, buckets);
        assert.deepEqual(normalise(sortStats(got.stats)), normalise(sortStats(want.stats)));
        assert.deepEqual(Object.fromEntries(got.baselines), Object.fromEntries(want.baselines), `buckets=${buckets}`);
      }
    });

    it("refuses windows that are not whole UTC days (rollups hold whole days)", async () => {
      const cut = { from: WINDOWS.march!.from + 1, to: WINDOWS.march!.to };
      await assert.rejects(backend.store.trendInputs(cut, 8, signal), RangeError);
      await assert.rejects(backend.store.aggregateByTopic(cut, signal), RangeError);
      await assert.rejects(
        backend.store.countsByTopicAndBucket(WINDOWS.march!, DAY + 1, signal),
        /whole UTC days in buckets of whole days/,
      );
    });

    it("answers several top-post asks at once like separate asks", async () => {
      const asks = [
        { topicIds: ["seo", "crypto", "python"], window: WINDOWS.march! },
        { topicIds: ["seo", "no-such-topic"], window: WINDOWS.february! },
        { topicIds: [], window: WINDOWS.february! },
        { topicIds: ["python"], window: WINDOWS["whole corpus"]! },
      ];
      for (const store of [backend.store, ...(backend.alternate ? [backend.alternate] : [])]) {
        for (const n of [1, 7]) {
          const got = await store.topPostsFor(asks, n, signal);
          const want = await Promise.all(asks.map((a) => oracle().topPosts(a.topicIds, a.window, n)));
          assert.deepEqual(got, want, `n=${n}`);
        }
      }
      assert.deepEqual(await backend.emptyStore.topPostsFor(asks.slice(0, 2), 5, signal), [
        new Map([
          ["seo", []],
          ["crypto", []],
          ["python", []],
        ]),
        new Map([
          ["seo", []],
          ["no-such-topic", []],
        ]),
      ]);
    });

    it("gives the same top posts whatever an ask's counts hint says", async () => {
      // A hint only picks how a store reads (the LanceDB store reads a small window's text in
      // its ranking scan, the Weaviate store skips a fetch that cannot hold a large topic):
      // 0 asks for the one way, a huge count for the other.
      const asks = [
        { topicIds: ["seo", "crypto", "python"], window: WINDOWS.march! },
        { topicIds: ["seo", "no-such-topic"], window: WINDOWS.february! },
        { topicIds: ["python"], window: WINDOWS["whole corpus"]! },
      ];
      for (const posts of [0, 1e9]) {
        for (const n of [1, 7]) {
          const got = await backend.store.topPostsFor(
            asks.map((a) => ({ ...a, counts: new Map(a.topicIds.map((id) => [id, posts])) })),
            n,
            signal,
          );
          const want = await Promise.all(asks.map((a) => oracle().topPosts(a.topicIds, a.window, n)));
          assert.deepEqual(got, want, `posts=${posts} n=${n}`);
        }
      }
    });

    it("returns the most engaged posts of a topic in the oracle's order", async () => {
      const topics = ["seo", "crypto", "python", "no-such-topic"];
      for (const store of [backend.store, ...(backend.alternate ? [backend.alternate] : [])]) {
        for (const n of [1, 5, 200]) {
          for (const window of [WINDOWS.february!, WINDOWS["one day"]!, WINDOWS["whole corpus"]!]) {
            const got = await store.topPosts(topics, window, n, signal);
            const want = await oracle().topPosts(topics, window, n);
            assert.deepEqual(got, want, `n=${n}`);
          }
        }
      }
      assert.deepEqual(
        await backend.store.topPosts(["python"], WINDOWS.february!, 0, signal),
        new Map([["python", []]]),
      );
    });

    for (const [label, req] of [
      ["default window", { startDate: "", endDate: "", limit: undefined }],
      ["a month", { startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 }],
      ["one day", { startDate: "2024-02-14", endDate: "2024-02-14", limit: 10 }],
      ["before any data", { startDate: "2023-01-01", endDate: "2023-01-31", limit: 10 }],
    ] as const) {
      it(`gives the same ListTrends outcome as the oracle: ${label}`, async () => {
        const got = await listTrends(backend.store, req);
        const want = await listTrends(oracle(), req);
        assert.deepEqual(normalise(got), normalise(want));
        if (label === "a month") assert.equal(got.trends[0]?.topicId, "seo");
      });
    }

    it("scans every post with its vector", async () => {
      const seen = new Map<string, Float32Array>();
      for await (const batch of backend.store.scanVectors(50, signal)) {
        assert.ok(batch.length <= 50);
        for (const p of batch) seen.set(p.id, p.vector);
      }
      assert.equal(seen.size, posts.length);
      const sample = posts[17]!;
      const got = seen.get(sample.id)!;
      assert.equal(got.length, DIMS);
      for (let i = 0; i < DIMS; i++) assert.ok(Math.abs(got[i]! - sample.vector[i]!) < 1e-6);
    });

    it("rebuilds topics from the index, re-tags posts, and keeps ids on a second rebuild", async () => {
      const file = path.join(modelDir, "topics", "model.json");
      const first = await rebuildTopics(backend.store, { file, k: 3, seed: 42, batchSize: 40 });
      assert.equal(first.posts, posts.length);
      // The topics a build over the same posts in memory finds, whatever order this store scans
      // them in (Weaviate's cursor goes by UUID): every backend's rebuild of them agrees.
      const inMemory = buildTopicModel(
        posts.map((p) => ({ id: p.id, vector: p.vector, title: p.title, content: p.content })),
        { k: 3, seed: 42 },
      );
      assert.deepEqual(first.model.topics, inMemory.model.topics);
      assert.equal(first.retagged, posts.length, "theme-named ids all change to model ids");
      const ids = first.model.topics.map((t) => t.id).sort();
      const stats = await backend.store.aggregateByTopic(WINDOWS["whole corpus"]!, signal);
      assert.deepEqual(stats.map((s) => s.topicId).sort(), ids);
      assert.equal(
        stats.reduce((s, x) => s + x.count, 0),
        posts.length,
      );
      assert.equal(
        (await backend.store.rollupsFresh(signal))?.count,
        posts.length,
        "the rebuild reset the rollups to the new topic ids",
      );

      const second = await rebuildTopics(backend.store, { file, k: 3, seed: 9, batchSize: 40 });
      assert.deepEqual(second.model.topics.map((t) => t.id).sort(), ids);
      assert.equal(second.keptIds, 3);
      assert.ok(second.retagged <= posts.length * 0.02, `re-tagged ${second.retagged}`);
      assert.equal((await loadTopicModel(file))?.version, 2);
    });

    it("keeps rollups exact when posts are re-ingested (old contributions are taken back)", async () => {
      // Runs after the topic rebuild (which must see the untouched corpus): take the rebuilt ids.
      const topicOf = new Map<string, string>();
      for await (const batch of backend.store.scanVectors(500, signal))
        for (const p of batch) topicOf.set(p.id, p.topicId);
      posts = posts.map((p) => ({ ...p, topicId: topicOf.get(p.id)! }));
      const topicIds = [...new Set(topicOf.values())].sort();
      // The re-tag went through the store's connection; the writer reads old versions through
      // its own, which sees other connections' commits after its freshness interval.
      await eventually(async () =>
        (
          await writer.get(
            posts.slice(0, 12).map((p) => p.id),
            signal,
          )
        ).every((p, i) => p.topicId === posts[i]!.topicId),
      );
      assert.equal((await backend.store.rollupsFresh(signal))?.count, posts.length);
      // The re-tag first: the rebuilt rollups answer with the new topic ids.
      await assertMatchesOracle(backend.store, oracle());
      const changed = posts.slice(0, 12).map((p, i) => ({
        ...p,
        upvotes: p.upvotes + 1000 + i,
        comments: i % 2 === 0 ? 0 : p.comments + 5,
        sentimentScore: -p.sentimentScore,
        subforum: i % 3 === 0 ? "moved-sub" : p.subforum,
        topicId: i % 4 === 0 ? topicIds.find((t) => t !== p.topicId)! : p.topicId,
        created: i % 5 === 0 ? p.created + 9 * DAY : p.created,
      }));
      // Twice, and with unchanged posts in the batch: none of it may be counted again.
      const unchanged = posts.slice(12, 20);
      for (let round = 0; round < 2; round++)
        assert.deepEqual((await writer.upsert([...changed, ...unchanged], signal)).failed, []);
      posts = [...changed, ...posts.slice(12)];
      await eventually(async () => (await backend.store.rollupsFresh(signal))?.count === posts.length);
      await assertMatchesOracle(backend.store, oracle());
      // The oracle over the posts as the backend stores them gives the same: the model above is right.
      await assertMatchesOracle(
        backend.store,
        new TrendOracle(
          await writer.get(
            posts.map((p) => p.id),
            signal,
          ),
        ),
      );
    });

    it("backfills the rollups on read when a writer bypassed them", async () => {
      const extra = { ...posts[3]!, id: "test:bypass", nativeId: "bypass", upvotes: 5000 };
      assert.deepEqual((await backend.index.upsert([extra], signal)).failed, []);
      posts = [...posts, extra];
      await eventually(async () => (await backend.store.rollupsFresh(signal)) === undefined);
      // The shortfall does not move (no writer is active), so the first read rebuilds the rollups.
      await assertMatchesOracle(backend.store, oracle());
      assert.equal((await backend.store.rollupsFresh(signal))?.count, posts.length);
    });

    it("a store holding a rollup snapshot sees writes made through another store", async () => {
      const same = async () => {
        const got = await backend.reader.trendInputs(WINDOWS.march!, 8, signal);
        const want = await oracle().trendInputs(WINDOWS.march!, 8);
        // Key order of the baselines is unspecified: compare as deep-equal values, not as text.
        return isDeepStrictEqual(
          normalise({ stats: sortStats(got.stats), baselines: Object.fromEntries(got.baselines) }),
          normalise({ stats: sortStats(want.stats), baselines: Object.fromEntries(want.baselines) }),
        );
      };
      await eventually(same);
      const added = [0, 1, 2].map((i) => ({
        ...posts[5 + i]!,
        id: `test:later-${i}`,
        nativeId: `later-${i}`,
        created: Date.UTC(2024, 2, 10 + i, 12),
        upvotes: 777,
      }));
      assert.deepEqual((await writer.upsert(added, signal)).failed, []);
      posts = [...posts, ...added];
      await eventually(same);
    });
  });

  describe(`TrendStore contract: ${name}, over an index written without rollups`, { skip }, () => {
    let backend: TrendBackend;
    const posts = trendCorpus(true).posts;

    before(async () => {
      backend = await setup();
      // Straight through the index, as an index written before rollups existed was.
      await backend.index.open(MODEL, DIMS);
      assert.deepEqual((await backend.index.upsert(posts, signal)).failed, []);
      await backend.store.open();
      await eventually(async () => (await backend.index.count(signal)) === posts.length);
    });
    after(async () => {
      await backend?.index.close();
      await backend?.store.close();
      await backend?.cleanup();
    });

    it("builds the rollups on the first read and answers as the oracle does", async () => {
      assert.equal(await backend.store.rollupsFresh(signal), undefined);
      await assertMatchesOracle(backend.store, new TrendOracle(posts.map((p) => ({ ...p }))));
      assert.equal((await backend.store.rollupsFresh(signal))?.count, posts.length);
    });
  });
}

/**
 * ListTrends over `store` with a model of no topics: ListTrends needs one to exist
 * (TOPICS_NOT_BUILT otherwise), and with none of its own every topic id stands for itself, as
 * the oracle's do.
 */
function listTrends(
  store: TrendStore,
  req: { startDate: string; endDate: string; limit: number | undefined },
): Promise<TrendsOutcome> {
  const empty: TopicModel = {
    format: 1,
    version: 1,
    createdAt: "2024-01-01T00:00:00Z",
    dimensions: DIMS,
    seed: 1,
    nextId: 1,
    topics: [],
  };
  return new TrendsCore({ store, topics: async () => empty }).list(req, signal);
}

/** ListTrends requests every rollup check also compares. */
const LIST_TRENDS_REQUESTS = [
  { startDate: "", endDate: "", limit: undefined },
  { startDate: "2024-03-01", endDate: "2024-03-31", limit: 10 },
  { startDate: "2024-02-14", endDate: "2024-02-14", limit: 10 },
];

/** Polls `check` until it holds (at most ~5 s): for answers that trail a write by the read-freshness interval. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail("condition not reached within 5 s");
}

/** Every rollup reader of the store, and ListTrends over it, answers as the oracle does. */
async function assertMatchesOracle(store: TrendStore, oracle: TrendOracle): Promise<void> {
  assert.equal(await store.latestCreated(signal), await oracle.latestCreated());
  for (const window of Object.values(WINDOWS)) {
    assert.deepEqual(
      normalise(sortStats(await store.aggregateByTopic(window, signal))),
      normalise(sortStats(await oracle.aggregateByTopic(window))),
    );
  }
  const range = { from: Date.UTC(2023, 11, 1), to: Date.UTC(2024, 3, 1) - 1 };
  assert.deepEqual(
    Object.fromEntries(await store.countsByTopicAndBucket(range, 7 * DAY, signal)),
    Object.fromEntries(await oracle.countsByTopicAndBucket(range, 7 * DAY)),
  );
  const inputs = await store.trendInputs(WINDOWS.march!, 8, signal);
  const expected = await oracle.trendInputs(WINDOWS.march!, 8);
  assert.deepEqual(normalise(sortStats(inputs.stats)), normalise(sortStats(expected.stats)));
  assert.deepEqual(Object.fromEntries(inputs.baselines), Object.fromEntries(expected.baselines));
  for (const req of LIST_TRENDS_REQUESTS)
    assert.deepEqual(normalise(await listTrends(store, req)), normalise(await listTrends(oracle, req)), req.startDate);
}
