/**
 * FindLeads returns leads about the query or nothing, on real sample posts ingested by the real
 * CLI, on both backends: asks the sample holds leads for come back with leads that name what was
 * asked, each judged by the absolute relevance and the subject rule (src/core/absolute-relevance.ts);
 * asks it holds no lead for come back empty; and a leads monitor over the same posts matches
 * exactly the posts FindLeads returns.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { cosineOfUnit, judgeLead, leadFloorFor, postWords, relevanceQuery } from "../../src/core/absolute-relevance.js";
import { keywordText } from "../../src/core/keyword-text.js";
import { leadQuerySubject } from "../../src/core/lead-query.js";
import { LeadsCore, leadRank } from "../../src/core/leads.js";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { HybridCandidate, SearchIndex } from "../../src/index/search-index.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import { MonitorMatcher } from "../../src/monitors/monitor-matcher.js";
import { monitorQueryText } from "../../src/monitors/monitor-query.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { storedMonitor } from "../monitors/monitor-fixtures.js";

const FILES = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 300 },
  { file: "reddit_top2013/raw_csv/smallbusiness.csv", limit: 300 },
];
/** Asks the sample holds leads for, and what every lead returned for them must name. */
const ON_TOPIC = [
  { query: "recommend accounting or invoicing software", names: /accounting|invoic/i, atLeast: 2 },
  { query: "email hosting for my domain", names: /e-?mail/i, atLeast: 1 },
];
/** Asks the sample holds no lead for (it holds some 60 leads about other things). */
const OFF_TOPIC = ["need a dentist in Boston", "where to buy a used tractor", "looking for a wedding photographer"];
/** Asks with several leads each, for the sort orders. */
const BROAD = [
  "need help marketing my small business",
  "recommend smartphone apps for a small business",
  "what software do small businesses use",
];
const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };

// One embedder for the file: both suites embed alike, and a native encoder loads once per process.
let shared: Promise<UseEmbedder> | undefined;
const sharedEmbedder = (): Promise<UseEmbedder> => (shared ??= startUseEmbedder(1));
after(async () => (await shared)?.close());

/** Every post of the index with its vector, in (created, id) order. */
async function allPosts(index: SearchIndex): Promise<IndexedPost[]> {
  const posts = await index.scan({ limit: 1000 });
  assert.ok(posts.length < 1000, "the sample fits one scan page");
  return index.getIndexed(posts.map((p) => p.id));
}

function leadsMonitor(id: string, query: string): StoredMonitor {
  return storedMonitor(id, { kind: "leads", query });
}

/** The checks, for an opened index holding the sample. */
function leadSuite(name: string, getIndex: () => SearchIndex, getEmbedder: () => UseEmbedder): void {
  const core = () => new LeadsCore({ index: getIndex(), embedder: getEmbedder(), ...ALPHAS });

  test(`${name}: an ask the sample holds leads for gets leads about it, each judged on its own`, async () => {
    const index = getIndex();
    const embedder = getEmbedder();
    const floor = leadFloorFor(embedder.model);
    const signal = AbortSignal.timeout(120_000);
    for (const { query, names, atLeast } of ON_TOPIC) {
      const leads = await core().find({ query, limit: 10, minScore: 0 }, signal);
      assert.ok(leads.length >= atLeast, `${query}: ${leads.length} leads`);
      const subject = leadQuerySubject(query);
      const [vector] = await embedder.embed([subject]);
      const stored = await index.getIndexed(leads.map((l) => l.post.id));
      leads.forEach((lead, i) => {
        const post = stored[i]!;
        assert.match(`${post.title} ${post.content}`, names, `${query}: "${post.title}"`);
        // The score is the absolute relevance of the stored post, recomputed here, at or above the floor.
        const j = judgeLead(
          relevanceQuery(subject, ALPHAS),
          cosineOfUnit(vector!, post.vector),
          postWords(post),
          floor,
        );
        assert.equal(j.about, true, `${query}: "${post.title}"`);
        assert.ok(Math.abs(lead.score - j.relevance) < 1e-6, `${query}: score ${lead.score} vs ${j.relevance}`);
        assert.ok(lead.score >= floor.floor);
        assert.equal(lead.rank, leadRank(lead.score, lead.post.leadScore));
        if (i > 0) assert.ok(leads[i - 1]!.rank >= lead.rank, `${query}: ranks out of order`);
      });
    }
  });

  test(`${name}: an ask the sample holds no lead for gets an empty page`, async () => {
    const index = getIndex();
    const embedder = getEmbedder();
    const signal = AbortSignal.timeout(120_000);
    for (const query of OFF_TOPIC) {
      assert.deepEqual(await core().find({ query, limit: 10, minScore: 0 }, signal), [], query);
      // Retrieval alone still finds leads to offer: the page is empty because none is about the ask.
      const subject = leadQuerySubject(query);
      const [vector] = await embedder.embed([subject]);
      const nearest = await index.hybrid({
        text: keywordText(subject),
        vector: vector!,
        alpha: relevanceQuery(subject, ALPHAS).alpha,
        limit: 10,
        offset: 0,
        filter: { minLeadScore: 0 },
      });
      assert.equal(nearest.length, 10, `${query}: retrieval found ${nearest.length} leads`);
    }
  });

  test(`${name}: a leads monitor matches exactly the posts FindLeads returns`, async () => {
    const embedder = getEmbedder();
    const posts = await allPosts(getIndex());
    const queries = [...ON_TOPIC.map((q) => q.query), ...OFF_TOPIC, ...BROAD];
    const monitors = queries.map((q, i) => leadsMonitor(`m${i}`, q));
    const vectors = await embedder.embed(monitors.map(monitorQueryText));
    const matcher = new MonitorMatcher(
      monitors,
      new Map(monitors.map((m, i) => [m.id, vectors[i]!])),
      embedder.dimensions,
      ALPHAS,
      embedder.model,
    );
    // The posts arrive in batches, as ingest hands them over.
    const matched = new Map<string, Set<string>>(monitors.map((m) => [m.id, new Set()]));
    for (let i = 0; i < posts.length; i += 64)
      for (const m of await matcher.match(posts.slice(i, i + 64))) matched.get(m.monitor.id)!.add(m.post.id);
    let nonEmpty = 0;
    for (const [i, query] of queries.entries()) {
      // 100 leads at most: the sample's leads are all candidates (3 per requested lead).
      const found = await core().find({ query, limit: 100, minScore: 0 }, AbortSignal.timeout(120_000));
      assert.ok(found.length < 100, `${query}: the page is full, so some matches may be cut`);
      assert.deepEqual(
        [...matched.get(`m${i}`)!].sort(),
        found.map((l) => l.post.id).sort(),
        `${query}: monitor and FindLeads disagree`,
      );
      if (found.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= ON_TOPIC.length + BROAD.length - 1, `only ${nonEmpty} queries matched anything`);
  });

  test(`${name}: another sort orders the best-ranked leads by its key, ties by id`, async () => {
    const signal = AbortSignal.timeout(120_000);
    const keys = {
      newest: (l: { post: EnrichedPost }) => l.post.created,
      oldest: (l: { post: EnrichedPost }) => -l.post.created,
      top: (l: { post: EnrichedPost }) => l.post.upvotes,
      most_commented: (l: { post: EnrichedPost }) => l.post.comments,
    };
    let checked = 0;
    for (const query of BROAD) {
      // Every lead of the sample is within both windows, so the sorted page is the ranked set sorted.
      const ranked = await core().find({ query, limit: 100, minScore: 0 }, signal);
      assert.ok(ranked.length < 100, `${query}: the sample should hold fewer than 100 leads`);
      for (const [sort, key] of Object.entries(keys)) {
        const page = await core().find({ query, limit: 10, minScore: 0, sort }, signal);
        const expected = [...ranked]
          .sort((a, b) => key(b) - key(a) || (a.post.id < b.post.id ? -1 : a.post.id > b.post.id ? 1 : 0))
          .slice(0, 10);
        assert.deepEqual(
          page.map((l) => l.post.id),
          expected.map((l) => l.post.id),
          `${query} sorted ${sort}`,
        );
        checked += page.length;
      }
    }
    assert.ok(checked > 40, `only ${checked} sorted leads checked`);
    await assert.rejects(
      core().find({ query: BROAD[0]!, limit: 10, minScore: 0, sort: "sideways" }, signal),
      /sort must be one of/,
    );
  });

  test(`${name}: hybrid reads and returns only the candidates choose picks, in its order`, async () => {
    const index = getIndex();
    const [vector] = await getEmbedder().embed([BROAD[0]!]);
    const query = { text: BROAD[0]!, vector: vector!, alpha: 0.5, limit: 12, offset: 0 };
    const all = await index.hybrid(query);
    assert.ok(all.length >= 6, `only ${all.length} hits`);
    let seen: readonly HybridCandidate[] = [];
    const picked = await index.hybrid({ ...query, choose: (page) => ((seen = page), [page[5]!, page[0]!, page[3]!]) });
    // Candidates arrive in fused order with the scores and lead fields of their posts.
    assert.deepEqual(
      seen.map((c) => [c.id, c.score, c.leadType, c.leadScore]),
      all.map((h) => [h.post.id, h.score, h.post.leadType, h.post.leadScore]),
    );
    assert.deepEqual(
      picked.map((h) => [h.post.id, h.score]),
      [5, 0, 3].map((i) => [all[i]!.post.id, all[i]!.score]),
    );
    assert.deepEqual(
      picked.map((h) => h.post.content),
      [5, 0, 3].map((i) => all[i]!.post.content),
    );
    assert.deepEqual(await index.hybrid({ ...query, choose: () => [] }), []);
  });
}

describe("FindLeads about the query or nothing, embedded index", { skip: corporaSkip() }, () => {
  let dataDir: string;
  let index: LanceDbIndex;
  let embedder: UseEmbedder;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-leads-rank-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, FILES);
    embedder = await sharedEmbedder();
    index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dataDir) });
    await index.open(embedder.model, embedder.dimensions);
  });
  after(async () => {
    await index?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  leadSuite(
    "lancedb",
    () => index,
    () => embedder,
  );
});

describe("FindLeads about the query or nothing, Weaviate", { skip: weaviateSkipReason() ?? corporaSkip() }, () => {
  let weaviate: WeaviateServer;
  let dataDir: string;
  let index: WeaviateIndex;
  let embedder: UseEmbedder;
  const collection = `Leads${Date.now()}`;
  before(async () => {
    weaviate = await startWeaviate();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-leads-rank-w-"));
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
  leadSuite(
    "weaviate",
    () => index,
    () => embedder,
  );
});
