/**
 * PostService against the real service on the embedded index: GetPosts and ExportPosts over
 * REST (NDJSON and CSV) and gRPC (@grpc/grpc-js, buf curl). 10,500 synthetic posts are written
 * through the service's own index; an export must equal the reference order (created, id), and
 * the paged VectorSearch (sort "oldest") of the same filter; a quota that runs out ends the
 * stream cleanly after the posts paid for; bad input is a 400 / INVALID_ARGUMENT naming the field.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { parse } from "csv-parse/sync";
import type { ExportPostsResponse } from "../../gen/threadsight/v1/posts_pb.js";
import { PostService } from "../../gen/threadsight/v1/posts_pb.js";
import { USE_DIMENSIONS } from "../../src/enrich/use-onnx/use-graph.js";
import type { EnrichedPost, IndexedPost } from "../../src/model/post.js";
import { callServerStream, callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { bufCurl } from "../harness/buf-curl.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { exportOrder, scanPosts } from "../index/posts-contract.js";
import { embed } from "../index/synthetic.js";
import { rest } from "./rest-client.js";

const POSTS = 10_500;
const INJECTIONS = ["x' OR '1'='1", 'startups") OR (1=1', "\\' OR 1=1 --", "*", "%"];

/** A POST with a JSON body whose answer is read as text (export bodies are not JSON). */
async function postText(
  url: string,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function ndjson(text: string): Record<string, any>[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Collects a gRPC export: the posts' ids and how it ended. */
function grpcExport(
  client: grpc.Client,
  key: string,
  request: object,
): Promise<{ ids: string[]; error: grpc.ServiceError | undefined }> {
  return new Promise((resolve) => {
    const ids: string[] = [];
    const call = callServerStream(
      client,
      PostService.method.exportPosts,
      request,
      {},
      { authorization: `Bearer ${key}` },
    );
    call.on("data", (m: ExportPostsResponse) => {
      assert.ok(m.posts.length >= 1 && m.posts.length <= 100);
      ids.push(...m.posts.map((p) => p.id));
    });
    // grpc-js emits the error (and 'end') as soon as the status arrives, while the last
    // messages may still be buffered for 'data' on the next tick; collect those first.
    let error: grpc.ServiceError | undefined;
    const done = () => setImmediate(() => resolve({ ids, error }));
    call.on("error", (e: grpc.ServiceError) => {
      error = e;
      done();
    });
    call.on("end", done);
  });
}

describe("PostService: GetPosts and ExportPosts", () => {
  let svc: RunningService;
  let key: string;
  let client: grpc.Client;
  // The default embedder (USE) sets the index's dimensions.
  const posts: IndexedPost[] = scanPosts(POSTS).map((p) => ({
    ...p,
    vector: embed(`${p.title} ${p.content}`, USE_DIMENSIONS),
  }));
  const reference = (keep: (p: EnrichedPost) => boolean = () => true): string[] =>
    posts
      .filter(keep)
      .sort(exportOrder)
      .map((p) => p.id);
  const exportUrl = () => `${svc.url}/api/v1/posts:export`;

  before(async () => {
    svc = await startService();
    for (let i = 0; i < posts.length; i += 2000) {
      const res = await svc.service.index.upsert(posts.slice(i, i + 2000));
      assert.deepEqual(res.failed, []);
    }
    key = await svc.createKey("enterprise");
    client = createGrpcJsClient(PostService, svc.address);
  });
  after(async () => {
    client?.close();
    await svc?.stop();
  });

  test("GetPosts returns the posts found in request order and the ids not found, agreeing with search", async () => {
    const search = await rest(svc.url, "/api/v1/search/semantic", { key, body: { query: "pricing post", limit: 10 } });
    assert.equal(search.status, 200, JSON.stringify(search.body));
    const hits = search.body.data.results as Record<string, unknown>[];
    assert.ok(hits.length > 0);
    const ids = [...hits.map((h) => String(h.id)), "test:missing", "x' OR '1'='1"];
    const res = await postText(`${svc.url}/api/v1/posts:batchGet`, { ids: [...ids].reverse() }, key);
    assert.equal(res.status, 200, res.text);
    const data = JSON.parse(res.text).data;
    assert.deepEqual(data.not_found, ["x' OR '1'='1", "test:missing"]);
    assert.deepEqual(
      data.posts.map((p: { id: string }) => p.id),
      hits.map((h) => h.id).reverse(),
    );
    for (const hit of hits) {
      const got = data.posts.find((p: { id: string }) => p.id === hit.id);
      for (const field of ["title", "subforum", "upvotes", "comments", "created", "url", "sentiment"])
        assert.deepEqual(got[field], hit[field], `${hit.id} ${field}`);
      const stored = posts.find((p) => p.id === hit.id)!;
      assert.equal(got.content, stored.content);
      assert.equal(got.author, stored.author);
      assert.equal(got.source, stored.source);
      assert.equal(got.lead_type, stored.leadType);
    }
  });

  test("an NDJSON export of every post (10,500) equals the reference order and ends with its count", async () => {
    const res = await postText(exportUrl(), {}, key, { accept: "application/x-ndjson" });
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.match(res.headers.get("content-type") ?? "", /^application\/x-ndjson/);
    const lines = ndjson(res.text);
    assert.deepEqual(lines.at(-1), { end: { exported: POSTS } });
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.id),
      reference(),
    );
    assert.equal(typeof lines[0]!.created, "string");
  });

  test("a filtered export equals the paged VectorSearch (sort oldest) of the same filter, in order", async () => {
    const filter = { subforums: ["saas"], min_upvotes: 200, sources: ["reddit"] };
    const want = reference((p) => p.subforum === "saas" && p.upvotes >= 200 && p.source === "reddit");
    assert.ok(want.length > 100 && want.length <= 1000, `${want.length} posts match`);
    const paged: string[] = [];
    let token = "";
    for (let page = 0; page < 20; page++) {
      const res = await rest(svc.url, "/api/v1/search/vector", {
        key,
        body: { query: "post", limit: 100, filter, sort: "oldest", page_token: token },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      paged.push(...res.body.data.results.map((r: { id: string }) => r.id));
      token = res.body.data.next_page_token;
      if (token === "") break;
    }
    assert.deepEqual(paged, want);
    const exported = ndjson((await postText(exportUrl(), { filter, format: "ndjson" }, key)).text);
    assert.deepEqual(
      exported.slice(0, -1).map((l) => l.id),
      want,
    );
    const grpcOut = await grpcExport(client, key, {
      filter: { subforums: ["saas"], minUpvotes: 200, sources: ["reddit"] },
    });
    assert.equal(grpcOut.error, undefined, grpcOut.error?.details);
    assert.deepEqual(grpcOut.ids, want);
  });

  test("a CSV export (Accept: text/csv) parses to the reference rows and ends with #end", async () => {
    const filter = { authors: ["user3", "o'brien"], sentiments: ["negative"] };
    const want = reference((p) => ["user3", "o'brien"].includes(p.author) && p.sentiment === "negative");
    const res = await postText(exportUrl(), { filter }, key, { accept: "text/csv" });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
    const rows = parse(res.text, { relax_column_count: true }) as string[][];
    assert.equal(rows[0]![0], "id");
    assert.deepEqual(rows.at(-1), ["#end", String(want.length)]);
    assert.deepEqual(
      rows.slice(1, -1).map((r) => r[0]),
      want,
    );
    const first = posts.find((p) => p.id === want[0])!;
    const row = rows[1]!;
    assert.equal(row[rows[0]!.indexOf("title")], first.title);
    assert.equal(row[rows[0]!.indexOf("subforum")], first.subforum);
  });

  test("an export over gRPC streams every post in order, in messages of at most 100", async () => {
    const out = await grpcExport(client, key, {});
    assert.equal(out.error, undefined, out.error?.details);
    assert.deepEqual(out.ids, reference());
  });

  test("the quota running out mid-export ends the stream after the posts paid for (gRPC, NDJSON, CSV)", async () => {
    // A quota of 3 calls: the export is admitted (posts 1..1000), then pays for 1001..2000 and
    // 2001..3000; the block from 3001 finds no call left.
    const grpcKey = await svc.createKey("enterprise", "grpc quota", { quota: 3 });
    const out = await grpcExport(client, grpcKey, {});
    assert.equal(out.error?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(out.error!.details, /quota/i);
    assert.deepEqual(out.ids, reference().slice(0, 3000));

    const ndKey = await svc.createKey("enterprise", "ndjson quota", { quota: 3 });
    const nd = await postText(exportUrl(), {}, ndKey);
    assert.equal(nd.status, 200);
    const lines = ndjson(nd.text);
    const last = lines.at(-1)!;
    assert.equal(last.error.reason, "QUOTA_EXCEEDED");
    assert.equal(last.error.code, "resource_exhausted");
    assert.equal(last.error.exported, 3000);
    assert.ok(last.error.retry_after_seconds > 0);
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.id),
      reference().slice(0, 3000),
    );
    // The quota is used up now: the next export is refused before its first byte.
    const refused = await rest(svc.url, "/api/v1/posts:export", { key: ndKey, body: {} });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.reason, "QUOTA_EXCEEDED");

    const csvKey = await svc.createKey("enterprise", "csv quota", { quota: 2 });
    const csv = await postText(exportUrl(), { format: "csv" }, csvKey);
    const rows = parse(csv.text, { relax_column_count: true }) as string[][];
    assert.equal(rows.length, 1 + 2000 + 1);
    assert.equal(rows.at(-1)![0], "#error");
    assert.equal(rows.at(-1)![1], "QUOTA_EXCEEDED");
  });

  test("an export is recorded as one export_posts call per started 1,000 posts", async () => {
    const fresh = await svc.createKey("enterprise", "usage");
    const out = await grpcExport(client, fresh, {});
    assert.equal(out.ids.length, POSTS);
    const none = await postText(exportUrl(), { filter: { authors: ["nobody"] } }, fresh);
    assert.deepEqual(ndjson(none.text), [{ end: { exported: 0 } }]);
    const usage = await rest(svc.url, "/api/v1/usage", { key: fresh });
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    const ops = Object.fromEntries(
      (usage.body.data.operations as { operation: string; count: number }[]).map((o) => [o.operation, o.count]),
    );
    assert.equal(ops.export_posts, Math.ceil(POSTS / 1000) + 1);
  });

  test("bad input is a 400 naming the field over REST and INVALID_ARGUMENT over gRPC", async () => {
    const cases: { path: "batchGet" | "export"; body: Record<string, unknown>; field: string; message: RegExp }[] = [
      { path: "batchGet", body: { ids: [] }, field: "ids", message: /ids is required/ },
      {
        path: "batchGet",
        body: { ids: Array.from({ length: 101 }, (_, i) => `test:${i}`) },
        field: "ids",
        message: /at most 100 post ids, got 101/,
      },
      { path: "batchGet", body: { ids: ["test:a", ""] }, field: "ids[1]", message: /must be 1\.\.300 characters/ },
      { path: "batchGet", body: { ids: ["x".repeat(301)] }, field: "ids[0]", message: /got 301/ },
      { path: "batchGet", body: { ids: ["test:a", "test:b", "test:a"] }, field: "ids[2]", message: /repeats ids\[0\]/ },
      { path: "batchGet", body: { ids: ["test:a\u0000"] }, field: "ids[0]", message: /control characters/ },
      { path: "export", body: { format: "xml" }, field: "format", message: /format must be one of "ndjson", "csv"/ },
      {
        path: "export",
        body: { filter: { start_date: "2024-03-01", end_date: "2024-02-01" } },
        field: "filter.start_date",
        message: /must not be after/,
      },
      ...INJECTIONS.map((s) => ({
        path: "export" as const,
        body: { filter: { sources: [s] } },
        field: "filter.sources[0]",
        message: /must be a source name/,
      })),
      ...INJECTIONS.map((s) => ({
        path: "export" as const,
        body: { filter: { sentiments: [s] } },
        field: "filter.sentiments[0]",
        message: /must be one of/,
      })),
    ];
    for (const c of cases) {
      const res = await rest(svc.url, `/api/v1/posts:${c.path}`, { key, body: c.body });
      assert.equal(res.status, 400, `${c.field}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, c.message);
      assert.ok(res.body.error.message.includes(c.field.replace(/\[\d+\]$/, "")), res.body.error.message);
      const camel = JSON.parse(JSON.stringify(c.body).replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase()));
      if (c.path === "batchGet") {
        const out = await callUnaryWithMetadata(client, PostService.method.getPosts, camel, {
          authorization: `Bearer ${key}`,
        });
        assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, c.field);
        assert.match(out.error!.details, c.message);
      } else {
        const out = await grpcExport(client, key, camel);
        assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, c.field);
        assert.match(out.error!.details, c.message);
        assert.deepEqual(out.ids, []);
      }
    }
    for (const [path, body, field] of [
      ["batchGet", { idz: ["a"] }, "idz"],
      ["export", { filter: { min_upvote: 3 } }, "filter.min_upvote"],
      ["export", { fromat: "csv" }, "fromat"],
    ] as const) {
      const res = await rest(svc.url, `/api/v1/posts:${path}`, { key, body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.reason, "UNKNOWN_FIELD");
      assert.match(res.body.error.message, new RegExp(`unknown field "${field.replace(".", "\\.")}"`));
    }
  });

  test("an Accept the export cannot give is 406 before any byte; a missing key is 401 first", async () => {
    const res = await rest(svc.url, "/api/v1/posts:export", { key, body: {}, headers: { accept: "application/json" } });
    assert.equal(res.status, 406, JSON.stringify(res.body));
    assert.equal(res.body.error.reason, "NOT_ACCEPTABLE");
    assert.match(res.body.error.message, /Accept must allow application\/x-ndjson or text\/csv/);
    const csvLow = await postText(exportUrl(), { filter: { authors: ["user1"] } }, key, {
      accept: "application/json, text/csv;q=0.5",
    });
    assert.equal(csvLow.status, 200);
    assert.match(csvLow.headers.get("content-type") ?? "", /^text\/csv/);
    const anon = await rest(svc.url, "/api/v1/posts:export", { body: {}, headers: { accept: "application/json" } });
    assert.equal(anon.status, 401);
    const get = await rest(svc.url, "/api/v1/posts:export", { key });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
  });

  test("buf curl calls GetPosts through reflection", async () => {
    const id = reference()[0]!;
    const res = await bufCurl([
      "--http2-prior-knowledge",
      "-H",
      `Authorization: Bearer ${key}`,
      "-d",
      JSON.stringify({ ids: [id, "test:missing"] }),
      `${svc.url}/threadsight.v1.PostService/GetPosts`,
    ]);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { posts: { id: string }[]; notFound: string[] };
    assert.deepEqual(
      out.posts.map((p) => p.id),
      [id],
    );
    assert.deepEqual(out.notFound, ["test:missing"]);
  });
});
