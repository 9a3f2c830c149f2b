/**
 * A search monitor and SemanticSearch with the same query, filter and bar (`min_relevance`)
 * agree post for post, on real sample posts ingested by the real CLI, on both backends: the
 * posts the monitor matches, fed in ingest-sized batches, are exactly those every page of the
 * search returns, each with the same relevance.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { PageTokens } from "../../src/core/page-token.js";
import type { FilterParams } from "../../src/core/request-rules.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { AppError } from "../../src/errors/app-error.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import type { IndexedPost } from "../../src/model/post.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { MonitorMatcher } from "../../src/monitors/monitor-matcher.js";
import { monitorQueryText } from "../../src/monitors/monitor-query.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { storedMonitor } from "./monitor-fixtures.js";

const FILES = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 120 },
  { file: "reddit_top2013/raw_csv/smallbusiness.csv", limit: 120 },
];
/** Saved searches as a user writes them: opinion frames, short and long queries, bars, a filter. */
const SEARCHES: { query: string; minRelevance: number; filter?: FilterParams }[] = [
  { query: "what are people saying about crowdfunding", minRelevance: 0.4 },
  { query: "finding a technical cofounder", minRelevance: 0.45 },
  { query: "pricing", minRelevance: 0.35 },
  { query: "how to market a small business on a tiny budget", minRelevance: 0.4 },
  { query: "thoughts on hiring employees", minRelevance: 0.5 },
  { query: "taxes and accounting", minRelevance: 0.4, filter: { ...emptyFilter(), subforums: ["smallbusiness"] } },
  { query: "need a dentist in Boston", minRelevance: 0.5 },
];
const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };

let shared: Promise<UseEmbedder> | undefined;
const sharedEmbedder = (): Promise<UseEmbedder> => (shared ??= startUseEmbedder(1));
after(async () => (await shared)?.close());

/** Every post of the index with its vector. */
async function allPosts(index: SearchIndex): Promise<IndexedPost[]> {
  const posts = await index.scan({ limit: 1000 });
  assert.ok(posts.length < 1000, "the sample fits one scan page");
  return index.getIndexed(posts.map((p) => p.id));
}

function searchMonitor(id: string, s: (typeof SEARCHES)[number]): StoredMonitor {
  return storedMonitor(id, { query: s.query, minRelevance: s.minRelevance, filter: s.filter ?? emptyFilter() });
}

function agreementSuite(name: string, getIndex: () => SearchIndex, getEmbedder: () => UseEmbedder): void {
  const core = () =>
    new SearchCore({
      index: getIndex(),
      embedder: getEmbedder(),
      summarizer: createExtractiveSummarizer(),
      ...ALPHAS,
      pageTokens: new PageTokens(randomBytes(32)),
    });

  /** Every result of the search over all its pages, id -> relevance. */
  async function searchAll(search: SearchCore, s: (typeof SEARCHES)[number]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    let pageToken = "";
    for (let pages = 0; pages < 20; pages++) {
      const out = await search.semantic(
        { query: s.query, limit: 25, subforums: [], pageToken, filter: s.filter, minRelevance: s.minRelevance },
        AbortSignal.timeout(120_000),
      );
      for (const h of out.hits) {
        assert.ok(!found.has(h.post.id), `${s.query}: ${h.post.id} on two pages`);
        assert.ok(h.score >= s.minRelevance, `${s.query}: relevance ${h.score} under the bar`);
        found.set(h.post.id, h.score);
      }
      if (out.nextPageToken === "") return found;
      pageToken = out.nextPageToken;
    }
    assert.fail(`${s.query}: more than 20 pages`);
  }

  test(`${name}: a search monitor matches exactly the posts SemanticSearch returns over the same bar`, async () => {
    const embedder = getEmbedder();
    const posts = await allPosts(getIndex());
    const monitors = SEARCHES.map((s, i) => searchMonitor(`m${i}`, s));
    const vectors = await embedder.embed(monitors.map(monitorQueryText));
    const matcher = new MonitorMatcher(
      monitors,
      new Map(monitors.map((m, i) => [m.id, vectors[i]!])),
      embedder.dimensions,
      ALPHAS,
      embedder.model,
    );
    const matched = new Map<string, Map<string, number>>(monitors.map((m) => [m.id, new Map()]));
    for (let i = 0; i < posts.length; i += 64)
      for (const m of await matcher.match(posts.slice(i, i + 64)))
        matched.get(m.monitor.id)!.set(m.post.id, m.relevance);
    const search = core();
    let nonEmpty = 0;
    for (const [i, s] of SEARCHES.entries()) {
      const found = await searchAll(search, s);
      const byMonitor = matched.get(`m${i}`)!;
      assert.deepEqual(
        [...byMonitor.keys()].sort(),
        [...found.keys()].sort(),
        `${s.query}: monitor and search disagree`,
      );
      for (const [id, relevance] of found)
        assert.ok(
          Math.abs(relevance - byMonitor.get(id)!) < 1e-6,
          `${s.query}: ${id} ${relevance} vs ${byMonitor.get(id)}`,
        );
      // The bar selects: neither everything nor, for the on-topic searches, nothing.
      assert.ok(found.size < posts.length / 2, `${s.query}: ${found.size} of ${posts.length} posts pass`);
      if (found.size > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= SEARCHES.length - 2, `only ${nonEmpty} searches matched anything`);
  });

  test(`${name}: results over a bar come best first and the filter holds`, async () => {
    const s = SEARCHES.find((x) => x.filter !== undefined)!;
    const out = await core().semantic(
      { query: s.query, limit: 100, subforums: [], pageToken: "", filter: s.filter, minRelevance: s.minRelevance },
      AbortSignal.timeout(120_000),
    );
    assert.ok(out.hits.length > 0, "the filtered search finds posts");
    out.hits.forEach((h, i) => {
      assert.equal(h.post.subforum, "smallbusiness");
      if (i > 0) assert.ok(out.hits[i - 1]!.score >= h.score, "relevance out of order");
    });
  });

  test(`${name}: a bar outside 0..1 is refused naming min_relevance`, async () => {
    for (const minRelevance of [-0.1, 1.5, Number.NaN]) {
      await assert.rejects(
        core().semantic(
          { query: "pricing", limit: 10, subforums: [], pageToken: "", minRelevance },
          AbortSignal.timeout(60_000),
        ),
        (e: unknown) => e instanceof AppError && /min_relevance must be between 0 and 1/.test(e.message),
      );
    }
  });
}

describe("search monitors agree with SemanticSearch, LanceDB", { skip: corporaSkip() }, () => {
  let dataDir: string;
  let index: LanceDbIndex;
  let embedder: UseEmbedder;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-search-agree-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, FILES);
    embedder = await sharedEmbedder();
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dataDir) });
    await index.open(embedder.model, embedder.dimensions);
  });
  after(async () => {
    await index?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  agreementSuite(
    "lancedb",
    () => index,
    () => embedder,
  );
});

describe("search monitors agree with SemanticSearch, Weaviate", { skip: weaviateSkipReason() ?? corporaSkip() }, () => {
  let weaviate: WeaviateServer;
  let dataDir: string;
  let index: WeaviateIndex;
  let embedder: UseEmbedder;
  const collection = `SearchAgree${Date.now()}`;
  before(async () => {
    weaviate = await startWeaviate();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-search-agree-w-"));
    await seedSample(
      {
        WEAVIATE_URL: weaviate.httpUrl,
        WEAVIATE_GRPC_URL: weaviate.grpcUrl,
        WEAVIATE_COLLECTION: collection,
        THREADSIGHT_DATA_DIR: dataDir,
      },
      FILES,
    );
    embedder = await sharedEmbedder();
    index = new WeaviateIndex({
      httpUrl: weaviate.httpUrl,
      grpcUrl: weaviate.grpcUrl,
      collection,
      replicationFactor: 1,
      shards: 1,
      consistency: "ONE",
      fusion: "relativeScore",
    });
    await index.open(embedder.model, embedder.dimensions);
  });
  after(async () => {
    await index?.close();
    await weaviate?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  agreementSuite(
    "weaviate",
    () => index,
    () => embedder,
  );
});
