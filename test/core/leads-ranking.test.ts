/**
 * FindLeads ranks the fused candidates before their posts are read (HybridQuery.choose) and
 * reads only the lead fields: these tests hold it to the answer of the earlier way, which read
 * all 30 candidates whole and ranked the posts, on real sample posts ingested by the real CLI,
 * on both backends: same leads, same order, same scores and ranks, same fields.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { leadQuerySubject } from "../../src/core/lead-query.js";
import { LEAD_RELEVANCE_WEIGHT, LeadsCore } from "../../src/core/leads.js";
import { shorten } from "../../src/core/snippet.js";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { HybridCandidate, SearchIndex } from "../../src/index/search-index.js";
import { LEAD_FIELDS } from "../../src/index/search-index.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import type { EnrichedPost } from "../../src/model/post.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";

const FILES = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 120 },
  { file: "reddit_top2013/raw_csv/smallbusiness.csv", limit: 120 },
];
const QUERIES = [
  "looking for a CRM for a small sales team",
  "need help marketing my small business",
  "recommend accounting or invoicing software",
  "how do I find a technical cofounder",
  "hiring a developer to build our website",
];
const ALPHA = 0.5;
const CANDIDATES_PER_RESULT = 3;

/** The earlier FindLeads: the page of limit * 3 read whole, then ranked on the posts. */
async function findBefore(index: SearchIndex, vector: Float32Array, query: string, limit: number, minScore: number) {
  const hits = await index.hybrid({
    text: query,
    vector,
    alpha: ALPHA,
    limit: limit * CANDIDATES_PER_RESULT,
    offset: 0,
    filter: { minLeadScore: minScore },
  });
  const ranked = hits
    .filter((h) => h.post.leadType !== "" && h.post.leadScore >= minScore)
    .map((h) => ({
      post: { ...h.post, content: shorten(h.post.content) },
      score: h.score,
      rank: LEAD_RELEVANCE_WEIGHT * h.score + (1 - LEAD_RELEVANCE_WEIGHT) * (h.post.leadScore / 100),
    }))
    .sort((a, b) => b.rank - a.rank || a.post.id.localeCompare(b.post.id));
  return { leads: ranked.slice(0, limit), candidates: ranked.length };
}

/** What a lead shows (spec 2.5), its relevance and its rank. */
function shown(lead: { post: EnrichedPost; score: number; rank: number }) {
  return { ...Object.fromEntries(LEAD_FIELDS.map((f) => [f, lead.post[f]])), score: lead.score, rank: lead.rank };
}

// One embedder for the file: both suites embed alike, and a native encoder loads once per process.
let shared: Promise<UseEmbedder> | undefined;
const sharedEmbedder = (): Promise<UseEmbedder> => (shared ??= startUseEmbedder(1));
after(async () => (await shared)?.close());

/** The checks, for an opened index holding the sample. */
function leadSuite(name: string, getIndex: () => SearchIndex, getEmbedder: () => UseEmbedder): void {
  test(`${name}: FindLeads answers as it did when it read every candidate whole`, async () => {
    const index = getIndex();
    const embedder = getEmbedder();
    const core = new LeadsCore({ index, embedder, hybridAlpha: ALPHA, shortQueryAlpha: ALPHA });
    const signal = AbortSignal.timeout(120_000);
    let dropped = 0;
    let compared = 0;
    for (const query of QUERIES) {
      // FindLeads retrieves by the ask's subject (src/core/lead-query.ts); the earlier way is fed the same.
      const subject = leadQuerySubject(query);
      const [vector] = await embedder.embed([subject]);
      for (const minScore of [0, 30, 50]) {
        for (const limit of [3, 10]) {
          const before = await findBefore(index, vector!, subject, limit, minScore);
          const after = await core.find({ query, limit, minScore }, signal);
          assert.deepEqual(after.map(shown), before.leads.map(shown), `${query} (min ${minScore}, limit ${limit})`);
          compared += after.length;
          if (before.candidates > limit) dropped++;
        }
      }
    }
    // The comparison means something only if leads were found and ranking had to drop some.
    assert.ok(compared > 20, `only ${compared} leads compared`);
    assert.ok(dropped > 3, `ranking dropped candidates in only ${dropped} cases`);
  });

  test(`${name}: another sort orders the best-ranked leads by its key, ties by id`, async () => {
    const core = new LeadsCore({
      index: getIndex(),
      embedder: getEmbedder(),
      hybridAlpha: ALPHA,
      shortQueryAlpha: ALPHA,
    });
    const signal = AbortSignal.timeout(120_000);
    const keys = {
      newest: (l: { post: EnrichedPost }) => l.post.created,
      oldest: (l: { post: EnrichedPost }) => -l.post.created,
      top: (l: { post: EnrichedPost }) => l.post.upvotes,
      most_commented: (l: { post: EnrichedPost }) => l.post.comments,
    };
    let checked = 0;
    for (const query of QUERIES.slice(0, 3)) {
      // Every lead of the sample is within both windows, so the sorted page is the ranked set sorted.
      const ranked = await core.find({ query, limit: 100, minScore: 60 }, signal);
      assert.ok(ranked.length < 100, `${query}: the sample should hold fewer than 100 leads`);
      for (const [sort, key] of Object.entries(keys)) {
        const page = await core.find({ query, limit: 10, minScore: 60, sort }, signal);
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
      core.find({ query: QUERIES[0]!, limit: 10, minScore: 0, sort: "sideways" }, signal),
      /sort must be one of/,
    );
  });

  test(`${name}: hybrid reads and returns only the candidates choose picks, in its order`, async () => {
    const index = getIndex();
    const [vector] = await getEmbedder().embed([QUERIES[0]!]);
    const query = { text: QUERIES[0]!, vector: vector!, alpha: ALPHA, limit: 12, offset: 0 };
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

describe("FindLeads ranking before reading, embedded index", { skip: corporaSkip() }, () => {
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

describe("FindLeads ranking before reading, Weaviate", { skip: weaviateSkipReason() ?? corporaSkip() }, () => {
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
