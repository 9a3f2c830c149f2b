/**
 * ExportPosts with a query against the real service, one suite for each backend
 * (export-query.test.ts on LanceDB, weaviate-export-query.test.ts on Weaviate). The query is
 * embedded by the service's own encoder; each post's vector is built at a chosen cosine
 * similarity to it, a clear margin above or below the encoder's threshold, so the expected set
 * is known exactly. Over REST (NDJSON and CSV) and gRPC (@grpc/grpc-js) the export must be the
 * set AggregatePosts counts for the same query and filter (its total, its counts by field and
 * by day, and the ids), in export order with each post's similarity; the quota running out
 * ends the stream after the posts paid for; a bad query is a 400 / INVALID_ARGUMENT naming it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { parse } from "csv-parse/sync";
import type { ExportPostsResponse } from "../../gen/threadsight/v1/posts_pb.js";
import { PostService } from "../../gen/threadsight/v1/posts_pb.js";
import { minSimilarityFor } from "../../src/core/relevance-threshold.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import { callServerStream, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { exportOrder, scanPosts } from "../index/posts-contract.js";
import { rest } from "./rest-client.js";

const QUERY = "raising a seed round from angel investors";
const POSTS = 4_000;
/** Distance of every built similarity from the threshold. */
const MARGIN = 0.03;

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A unit vector whose cosine similarity to the unit vector `q` is `s`. */
function vectorAt(q: Float32Array, s: number, next: () => number): Float32Array {
  const r = Float64Array.from(q, () => next() * 2 - 1);
  let dot = 0;
  for (let i = 0; i < q.length; i++) dot += r[i]! * q[i]!;
  let norm = 0;
  for (let i = 0; i < q.length; i++) {
    r[i] = r[i]! - dot * q[i]!;
    norm += r[i]! * r[i]!;
  }
  norm = Math.sqrt(norm);
  const k = Math.sqrt(1 - s * s);
  return Float32Array.from(q, (x, i) => s * x + (k * r[i]!) / norm);
}

function unit(v: Float32Array): Float32Array {
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return Float32Array.from(v, (x) => x / n);
}

function ndjson(text: string): Record<string, any>[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** snake_case JSON keys -> the camelCase of protobuf-es messages. */
function camel(v: unknown): unknown {
  if (Array.isArray(v) || v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(x)]),
  );
}

/** A filter as the REST body writes it, and the posts it keeps. */
interface FilterCase {
  filter: Record<string, unknown>;
  keep: (p: EnrichedPost) => boolean;
}

const FILTERS: FilterCase[] = [
  { filter: {}, keep: () => true },
  { filter: { sources: ["hackernews"], min_upvotes: 100 }, keep: (p) => p.source === "hackernews" && p.upvotes >= 100 },
  {
    filter: { subforums: ["x' OR '1'='1", "saas"], sentiments: ["negative", "neutral"], start_date: "2024-01-05" },
    keep: (p) =>
      ["x' OR '1'='1", "saas"].includes(p.subforum) && p.sentiment !== "positive" && p.created >= Date.UTC(2024, 0, 5),
  },
];

/** Registers the suite; `env` points the service at its backend. */
export function registerExportQuerySuite(
  name: string,
  setup: () => Promise<{ env: Record<string, string>; stop: () => Promise<void> }>,
  opts: { skip?: string | false } = {},
): void {
  describe(`ExportPosts with a query: ${name}`, { skip: opts.skip ?? false }, () => {
    let backend: { stop: () => Promise<void> } | undefined;
    let svc: RunningService;
    let key: string;
    let client: grpc.Client;
    let posts: IndexedPost[] = [];
    /** The similarity each post was built at. */
    const built = new Map<string, number>();
    let minSimilarity = 0;
    const exportUrl = () => `${svc.url}/api/v1/posts:export`;

    const exportText = async (body: unknown, k = key, accept = "application/x-ndjson") => {
      const res = await fetch(exportUrl(), {
        method: "POST",
        headers: { authorization: `Bearer ${k}`, "content-type": "application/json", accept },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text(), type: res.headers.get("content-type") ?? "" };
    };

    const grpcExport = (request: object, k = key) =>
      new Promise<{ posts: ExportPostsResponse["posts"]; error: grpc.ServiceError | undefined }>((resolve) => {
        const out: ExportPostsResponse["posts"] = [];
        const call = callServerStream(
          client,
          PostService.method.exportPosts,
          request,
          {},
          { authorization: `Bearer ${k}` },
        );
        call.on("data", (m: ExportPostsResponse) => {
          assert.ok(m.posts.length >= 1 && m.posts.length <= 100);
          out.push(...m.posts);
        });
        // grpc-js emits the error (and 'end') as soon as the status arrives, while the last
        // messages may still be buffered for 'data' on the next tick; collect those first.
        let error: grpc.ServiceError | undefined;
        const done = () => setImmediate(() => resolve({ posts: out, error }));
        call.on("error", (e: grpc.ServiceError) => {
          error = e;
          done();
        });
        call.on("end", done);
      });

    const expected = (keep: (p: EnrichedPost) => boolean): string[] =>
      posts
        .filter((p) => keep(p) && built.get(p.id)! >= minSimilarity)
        .sort(exportOrder)
        .map((p) => p.id);

    before(async () => {
      const b = await setup();
      backend = b;
      svc = await startService({ env: b.env });
      const embedder = await createEmbedder(svc.config);
      try {
        const q = unit((await embedder.embed([QUERY]))[0]!);
        minSimilarity = minSimilarityFor(embedder.model);
        const next = random(51);
        posts = scanPosts(POSTS).map((p) => {
          // About three posts in five above the threshold, the rest below it, each a clear margin away.
          const s =
            next() < 0.6
              ? minSimilarity + MARGIN + next() * (0.95 - minSimilarity - MARGIN)
              : next() * (minSimilarity - MARGIN);
          built.set(p.id, s);
          return { ...p, vector: vectorAt(q, s, next) };
        });
      } finally {
        await embedder.close();
      }
      for (let i = 0; i < posts.length; i += 1000) {
        const res = await svc.service.index.upsert(posts.slice(i, i + 1000));
        assert.deepEqual(res.failed, []);
      }
      key = await svc.createKey("enterprise");
      client = createGrpcJsClient(PostService, svc.address);
    });
    after(async () => {
      client?.close();
      await svc?.stop();
      await backend?.stop();
    });

    test("NDJSON, CSV and gRPC exports with a query are every post above the threshold, oldest first", async () => {
      for (const { filter, keep } of FILTERS) {
        const label = JSON.stringify(filter);
        const want = expected(keep);
        assert.ok(want.length > 50, `${label} selects ${want.length}`);
        const nd = await exportText({ query: QUERY, filter });
        assert.equal(nd.status, 200, nd.text.slice(0, 300));
        const lines = ndjson(nd.text);
        assert.deepEqual(lines.at(-1), { end: { exported: want.length } }, label);
        const rows = lines.slice(0, -1);
        assert.deepEqual(
          rows.map((r) => r.id),
          want,
          label,
        );
        for (const r of rows) {
          assert.ok(r.similarity_score >= minSimilarity, `${r.id} ${r.similarity_score}`);
          assert.ok(Math.abs(r.similarity_score - built.get(r.id)!) < 1e-4, `${r.id} similarity`);
        }
        const csv = await exportText({ query: QUERY, filter }, key, "text/csv");
        assert.equal(csv.status, 200);
        assert.match(csv.type, /^text\/csv/);
        const table = parse(csv.text, { relax_column_count: true }) as string[][];
        assert.equal(table[0]!.at(-1), "similarity_score");
        assert.deepEqual(table.at(-1), ["#end", String(want.length)]);
        assert.deepEqual(
          table.slice(1, -1).map((r) => r[0]),
          want,
          `${label} csv`,
        );
        for (const r of table.slice(1, -1)) assert.ok(Math.abs(Number(r.at(-1)) - built.get(r[0]!)!) < 1e-4);

        const out = await grpcExport({ query: QUERY, filter: camel(filter) });
        assert.equal(out.error, undefined, out.error?.details);
        assert.deepEqual(
          out.posts.map((p) => p.id),
          want,
          `${label} grpc`,
        );
        assert.ok(out.posts.every((p) => p.similarityScore !== undefined && p.similarityScore >= minSimilarity));
      }
    });

    test("AggregatePosts' total, counts by field and by day with the query equal the exported rows", async () => {
      for (const { filter } of FILTERS) {
        const label = JSON.stringify(filter);
        const agg = await rest(svc.url, "/api/v1/aggregate", {
          key,
          body: { query: QUERY, filter, group_by: ["subforum", "source", "sentiment"], top_n: 100, interval: "day" },
        });
        assert.equal(agg.status, 200, JSON.stringify(agg.body));
        assert.equal(agg.body.data.min_similarity, minSimilarity);
        const rows = ndjson((await exportText({ query: QUERY, filter })).text).slice(0, -1);
        assert.equal(agg.body.data.total, rows.length, label);
        // The aggregate's counts by field and by day, computed again from the exported rows.
        for (const g of agg.body.data.groups as { field: string; values: { value: string; count: number }[] }[]) {
          const counts = new Map<string, number>();
          for (const r of rows) counts.set(r[g.field], (counts.get(r[g.field]) ?? 0) + 1);
          counts.delete("");
          assert.deepEqual(
            Object.fromEntries(g.values.map((v) => [v.value, v.count])),
            Object.fromEntries(counts),
            `${label} ${g.field}`,
          );
        }
        const days = new Map<string, number>();
        for (const r of rows)
          days.set(String(r.created).slice(0, 10), (days.get(String(r.created).slice(0, 10)) ?? 0) + 1);
        assert.deepEqual(
          Object.fromEntries(
            (agg.body.data.histogram as { start: string; post_count: number }[])
              .filter((b) => b.post_count > 0)
              .map((b) => [b.start, b.post_count]),
          ),
          Object.fromEntries(days),
          `${label} by day`,
        );
      }
    });

    test("without a query the rows carry no similarity_score and the CSV has no such column", async () => {
      const filter = { authors: ["user3"] };
      const lines = ndjson((await exportText({ filter })).text).slice(0, -1);
      assert.ok(lines.length > 10);
      assert.ok(lines.every((l) => !("similarity_score" in l)));
      const table = parse((await exportText({ filter }, key, "text/csv")).text, { relax_column_count: true });
      assert.equal((table as string[][])[0]!.at(-1), "target_product");
      const out = await grpcExport({ filter });
      assert.ok(out.posts.every((p) => p.similarityScore === undefined));
    });

    test("the quota running out mid-export with a query ends after the posts paid for (gRPC, NDJSON)", async () => {
      const want = expected(() => true);
      assert.ok(want.length > 2000, `${want.length} posts above the threshold`);
      const grpcKey = await svc.createKey("enterprise", "query quota grpc", { quota: 2 });
      const out = await grpcExport({ query: QUERY }, grpcKey);
      assert.equal(out.error?.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.deepEqual(
        out.posts.map((p) => p.id),
        want.slice(0, 2000),
      );
      const ndKey = await svc.createKey("enterprise", "query quota ndjson", { quota: 1 });
      const lines = ndjson((await exportText({ query: QUERY }, ndKey)).text);
      assert.equal(lines.at(-1)!.error.reason, "QUOTA_EXCEEDED");
      assert.equal(lines.at(-1)!.error.exported, 1000);
      assert.deepEqual(
        lines.slice(0, -1).map((l) => l.id),
        want.slice(0, 1000),
      );
      // Metered by the posts sent, not the posts examined: a whole export with a query costs
      // one call per started 1,000 posts above the threshold.
      const fresh = await svc.createKey("enterprise", "query usage");
      const all = await grpcExport({ query: QUERY }, fresh);
      assert.equal(all.posts.length, want.length);
      const usage = await rest(svc.url, "/api/v1/usage", { key: fresh });
      const ops = Object.fromEntries(
        (usage.body.data.operations as { operation: string; count: number }[]).map((o) => [o.operation, o.count]),
      );
      assert.equal(ops.export_posts, Math.ceil(want.length / 1000));
    });

    test("a blank or too long query is a 400 naming query over REST and INVALID_ARGUMENT over gRPC", async () => {
      const cases: { body: Record<string, unknown>; field: string; message: RegExp }[] = [
        { body: { query: "" }, field: "query", message: /query must not be blank when given; omit it/ },
        { body: { query: "  \t " }, field: "query", message: /query must not be blank/ },
        { body: { query: "x".repeat(501) }, field: "query", message: /query must be at most 500 characters, got 501/ },
        {
          body: { query: QUERY, filter: { subforums: ["saas"], exclude_subforums: ["saas"] } },
          field: "filter.exclude_subforums",
          message: /a post cannot be in both/,
        },
        { body: { query: QUERY, format: "xml" }, field: "format", message: /format must be one of/ },
      ];
      for (const c of cases) {
        const res = await rest(svc.url, "/api/v1/posts:export", { key, body: c.body });
        assert.equal(res.status, 400, `${c.field}: ${JSON.stringify(res.body)}`);
        assert.ok(res.body.error.message.startsWith(c.field), res.body.error.message);
        assert.match(res.body.error.message, c.message);
        const out = await grpcExport(camel(c.body) as object);
        assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, c.field);
        assert.match(out.error!.details, c.message);
        assert.deepEqual(out.posts, []);
      }
      const wrongType = await rest(svc.url, "/api/v1/posts:export", { key, body: { query: 5 } });
      assert.equal(wrongType.status, 400, JSON.stringify(wrongType.body));
      assert.match(wrongType.body.error.message, /query/);
    });
  });
}
