/**
 * The SearchIndex contract against a real Weaviate server (test/harness/weaviate.ts), in a
 * freshly named collection; plus what only Weaviate has: an unreachable server.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import weaviate, { reconfigure } from "weaviate-client";
import { IndexUnavailableError } from "../../src/index/search-index.js";
import { WEAVIATE_HYBRID_WINDOW } from "../../src/index/weaviate/hybrid-window.js";
import {
  collectionDefinition,
  DEFAULT_FLAT_SEARCH_CUTOFF,
  POST_PROPERTIES,
  postUuid,
  toProperties,
  WEAVIATE_LAYOUT,
} from "../../src/index/weaviate/schema.js";
import type { WeaviateIndexOptions } from "../../src/index/weaviate/weaviate-index.js";
import { flatSearchCutoffOf, WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { registerAggregateContract } from "./aggregate-contract.js";
import { registerIndexContract } from "./contract.js";
import { registerFilterContract } from "./filter-contract.js";
import { registerSearchContract } from "./search-contract.js";
import { DIMS, embed, MODEL, makePost, randomPosts } from "./synthetic.js";

const skip = weaviateSkipReason();

function options(server: WeaviateServer, collection: string): WeaviateIndexOptions {
  return {
    httpUrl: server.httpUrl,
    grpcUrl: server.grpcUrl,
    collection,
    replicationFactor: 1,
    shards: 1,
    consistency: "QUORUM",
    fusion: "relativeScore",
  };
}

async function dropCollection(server: WeaviateServer, name: string): Promise<void> {
  const client = await weaviate.connectToCustom({
    httpHost: "127.0.0.1",
    httpPort: server.httpPort,
    grpcHost: "127.0.0.1",
    grpcPort: server.grpcPort,
  });
  try {
    await client.collections.delete(name);
  } finally {
    await client.close();
  }
}

let server: WeaviateServer | undefined;
const serverReady = skip ? undefined : startWeaviate();
// File-level hook: runs after every suite in this file, whichever of them were selected.
after(async () => {
  await (await serverReady?.catch(() => undefined))?.stop();
});

/** A freshly named collection on the shared server for one suite (`extra` options for its index). */
async function weaviateFixture(extra: Partial<WeaviateIndexOptions> = {}) {
  server = await serverReady!;
  const collection = `ThreadsightTest${randomBytes(4).toString("hex")}`;
  const s = server;
  return {
    create: () => new WeaviateIndex({ ...options(s, collection), ...extra }),
    dispose: async () => {
      await dropCollection(s, collection).catch(() => {});
    },
  };
}

registerIndexContract("weaviate", () => weaviateFixture(), skip ? { skip } : {});
registerFilterContract("weaviate", () => weaviateFixture(), skip ? { skip } : {});
registerAggregateContract("weaviate", () => weaviateFixture(), skip ? { skip } : {});
// A cutoff far below the posts' count: a query's aggregate is added up over many created ranges,
// and a group's top values over answers that each left values out.
registerAggregateContract(
  "weaviate, searched in flat-search ranges of under 16 posts",
  () => weaviateFixture({ flatSearchCutoff: 16 }),
  skip ? { skip } : {},
);
registerSearchContract("weaviate", () => weaviateFixture(), skip ? { skip } : {});

describe("WeaviateIndex connection failures", { skip: skip ?? false }, () => {
  before(async () => {
    server = await serverReady!;
  });

  it("maps an unreachable server to IndexUnavailableError", async () => {
    const index = new WeaviateIndex({
      ...options(server!, "Nowhere"),
      httpUrl: "http://127.0.0.1:1",
      grpcUrl: "127.0.0.1:2",
    });
    await assert.rejects(index.open(MODEL, DIMS), IndexUnavailableError);
  });
});

describe("WeaviateIndex collection management", { skip: skip ?? false }, () => {
  const name = `ThreadsightMigrate${randomBytes(4).toString("hex")}`;
  const OLD = makePost({ nativeId: "old", title: "Written before the migration" });
  before(async () => {
    server = await serverReady!;
  });
  after(async () => {
    if (server) await dropCollection(server, name).catch(() => {});
  });

  it("adds properties missing from an older collection and keeps its objects", async () => {
    const client = await weaviate.connectToCustom({
      httpHost: "127.0.0.1",
      httpPort: server!.httpPort,
      grpcHost: "127.0.0.1",
      grpcPort: server!.grpcPort,
    });
    try {
      const meta = { embeddingModel: MODEL, dimensions: DIMS, layout: WEAVIATE_LAYOUT };
      const older = collectionDefinition(name, meta, { replicationFactor: 1, shards: 1 });
      older.properties = POST_PROPERTIES.filter((p) => p.name !== "topicId" && p.name !== "industry");
      const col = await client.collections.create(older);
      const { industry: _i, topicId: _t, ...props } = toProperties(OLD);
      await col.data.insert({ id: postUuid(OLD.id), properties: props, vectors: Array.from(OLD.vector) });
    } finally {
      await client.close();
    }
    const index = new WeaviateIndex(options(server!, name));
    try {
      assert.equal((await index.open(MODEL, DIMS)).count, 1);
      assert.equal((await index.get([OLD.id]))[0]?.title, OLD.title);
      const post = makePost({ nativeId: "m1", title: "Migrated collection post", industry: "fintech", topicId: "t7" });
      assert.deepEqual(await index.upsert([post]), { inserted: 1, updated: 0, failed: [] });
      const [got] = await index.get([post.id]);
      assert.equal(got?.industry, "fintech");
      assert.equal(got?.topicId, "t7");
    } finally {
      await index.close();
    }
  });

  it("gives a new collection the flat-search cutoff and moves an older collection's to the configured one", async () => {
    const fresh = `ThreadsightCutoff${randomBytes(4).toString("hex")}`;
    const client = await weaviate.connectToCustom({
      httpHost: "127.0.0.1",
      httpPort: server!.httpPort,
      grpcHost: "127.0.0.1",
      grpcPort: server!.grpcPort,
    });
    const cutoffNow = async (): Promise<number | undefined> =>
      flatSearchCutoffOf(await client.collections.use(fresh).config.get());
    try {
      const created = new WeaviateIndex(options(server!, fresh));
      await created.open(MODEL, DIMS);
      await created.close();
      assert.equal(await cutoffNow(), DEFAULT_FLAT_SEARCH_CUTOFF);
      // Weaviate's own default, as on a collection created before the setting existed.
      await client.collections.use(fresh).config.update({
        vectorizers: reconfigure.vectorizer.update({
          vectorIndexConfig: reconfigure.vectorIndex.hnsw({ flatSearchCutoff: 40_000 }),
        }),
      });
      assert.equal(await cutoffNow(), 40_000);
      const reopened = new WeaviateIndex({ ...options(server!, fresh), flatSearchCutoff: 12_345 });
      await reopened.open(MODEL, DIMS);
      await reopened.close();
      assert.equal(await cutoffNow(), 12_345);
    } finally {
      await client.collections.delete(fresh).catch(() => {});
      await client.close();
    }
  });

  it("refuses a foreign collection that holds objects", async () => {
    const foreign = `Foreign${randomBytes(4).toString("hex")}`;
    const client = await weaviate.connectToCustom({
      httpHost: "127.0.0.1",
      httpPort: server!.httpPort,
      grpcHost: "127.0.0.1",
      grpcPort: server!.grpcPort,
    });
    try {
      const col = await client.collections.create({ name: foreign, properties: [{ name: "x", dataType: "text" }] });
      await col.data.insert({ properties: { x: "y" }, vectors: [1, 0] });
      await assert.rejects(new WeaviateIndex(options(server!, foreign)).open(MODEL, DIMS), IndexUnavailableError);
    } finally {
      await client.collections.delete(foreign).catch(() => {});
      await client.close();
    }
  });

  it("rankedFusion hybrid scores are mapped onto 0..1", async () => {
    const index = new WeaviateIndex({ ...options(server!, name), fusion: "rankedFusion" });
    try {
      await index.open(MODEL, DIMS);
      const posts = randomPosts(30, 3, "rf");
      await index.upsert(posts);
      const hits = await index.hybrid({
        text: posts[4]!.title,
        vector: posts[4]!.vector,
        alpha: 0.5,
        limit: 10,
        offset: 0,
      });
      assert.equal(hits[0]!.post.id, posts[4]!.id);
      for (const h of hits) assert.ok(h.score > 0 && h.score <= 1, `score ${h.score}`);
      assert.ok(hits[0]!.score > 0.9, `top score ${hits[0]!.score}`);
    } finally {
      await index.close();
    }
  });

  it("hybrid pages: Weaviate cuts those within its fusion depth, the adapter those past it, without overlap", async () => {
    const paged = `ThreadsightPages${randomBytes(4).toString("hex")}`;
    const index = new WeaviateIndex(options(server!, paged));
    try {
      await index.open(MODEL, DIMS);
      // More posts than the window, and a query every post shares words with, so both sides
      // rank deeper than it.
      await index.upsert(randomPosts(WEAVIATE_HYBRID_WINDOW + 40, 5, "pg"));
      const text = "pricing growth customer startup";
      const run = async (offset: number, limit: number) =>
        (await index.hybrid({ text, vector: embed(text), alpha: 0.5, offset, limit })).map((h) => h.post.id);
      const head = await run(0, WEAVIATE_HYBRID_WINDOW);
      assert.equal(head.length, WEAVIATE_HYBRID_WINDOW);
      const headPages = [...(await run(0, 30)), ...(await run(30, 30)), ...(await run(60, 30)), ...(await run(90, 10))];
      assert.deepEqual(headPages, head, "pages within the fusion depth concatenate to the whole");
      const tail = await run(WEAVIATE_HYBRID_WINDOW, 40);
      assert.equal(tail.length, 40);
      const tailPages = [...(await run(WEAVIATE_HYBRID_WINDOW, 15)), ...(await run(WEAVIATE_HYBRID_WINDOW + 15, 25))];
      assert.deepEqual(tailPages, tail, "pages past it are cut from one window");
      assert.equal(new Set(tail).size, 40);
    } finally {
      await index.close();
      await dropCollection(server!, paged).catch(() => {});
    }
  });

  it("a batch larger than the write slices lands whole: exact counts, later copies win", async () => {
    const big = `ThreadsightSlices${randomBytes(4).toString("hex")}`;
    const index = new WeaviateIndex(options(server!, big));
    try {
      await index.open(MODEL, DIMS);
      // 1,100 posts: five slices of <= 250 over four lanes, so one lane writes two.
      const first = randomPosts(1100, 11, "s");
      assert.deepEqual(await index.upsert(first), { inserted: 1100, updated: 0, failed: [] });
      // 600 of them edited plus 500 new; one new id appears in the first and the last slice.
      const edited = first.slice(0, 600).map((p) => ({ ...p, title: `edited ${p.title}` }));
      const fresh = randomPosts(500, 12, "t");
      const early = { ...fresh[499]!, content: "early copy" };
      const second = await index.upsert([early, ...edited, ...fresh]);
      assert.deepEqual(second, { inserted: 500, updated: 600, failed: [] });
      assert.equal(await index.count(), 1600);
      const [last, edit, untouched] = await index.get([fresh[499]!.id, first[599]!.id, first[600]!.id]);
      assert.equal(last?.content, fresh[499]!.content);
      assert.equal(edit?.title, `edited ${first[599]!.title}`);
      assert.equal(untouched?.title, first[600]!.title);
    } finally {
      await index.close();
      await dropCollection(server!, big).catch(() => {});
    }
  });
});
