/**
 * TestMonitor over gRPC and REST against the real service: posts written by `threadsight ingest`
 * (a child process) with recent dates, a saved and an inline monitor run over the last N days,
 * the events the live path would have written (same payload), and nothing stored or sent.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { MonitorService } from "../../gen/threadsight/v1/monitors_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { runIngest } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const DAY_S = 86_400;
const now = Math.floor(Date.now() / 1000);

/** Reddit NDJSON lines, `age` days old. */
function post(id: string, title: string, age: number, subreddit = "productivity"): string {
  return JSON.stringify({
    id,
    subreddit,
    title,
    selftext: "",
    author: `user_${id}`,
    score: 4,
    num_comments: 2,
    created_utc: now - age * DAY_S,
    permalink: `/r/${subreddit}/comments/${id}/x/`,
  });
}

const POSTS = [
  post("n1", "Looking for an alternative to Notion for a small team", 1),
  post("n2", "Notion is too slow on my phone, what else works?", 3, "apps"),
  post("n3", "Moved our wiki from Notion to plain markdown files", 20),
  post("b1", "How should a home bakery price custom cakes?", 2, "smallbusiness"),
  post("b2", "Tips for a first farmers market stall", 5, "smallbusiness"),
];

describe("TestMonitor over gRPC and REST", () => {
  let dataDir: string;
  let svc: RunningService;
  let key: string;
  let client: grpc.Client;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-testmon-"));
    const file = path.join(dataDir, "recent.ndjson");
    writeFileSync(file, `${POSTS.join("\n")}\n`);
    const ingest = await runIngest([file], { THREADSIGHT_DATA_DIR: dataDir });
    assert.equal(ingest.code, 0, ingest.stderr);
    svc = await startService({ dataDir });
    key = await svc.createKey("pro");
    client = createGrpcJsClient(MonitorService, svc.address);
  });
  after(async () => {
    client.close();
    await svc?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = <K extends keyof typeof MonitorService.method>(name: K, req: object) =>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for every unary method
    callUnaryWithMetadata(client, MonitorService.method[name] as any, req as any, { authorization: `Bearer ${key}` });

  const keywords = { name: "notion", kind: "keywords", query: "notion" };

  test("gRPC: an inline keyword monitor over the default 7 days and over 30", async () => {
    const week = await call("testMonitor", { monitor: keywords });
    assert.equal(week.error, undefined, week.error?.details);
    const w = week.response as any;
    assert.deepEqual(
      w.events.map((e: any) => e.post.id),
      ["reddit:n1", "reddit:n2"],
      "the period's matches, newest post first",
    );
    assert.equal(w.matched, 2);
    assert.equal(w.scanned, 4, "the posts of the last 7 days");
    const e = w.events[0];
    assert.equal(e.id, "", "nothing was stored");
    assert.equal(e.origin, "test");
    assert.equal(e.monitorId, "");
    assert.deepEqual(e.reason.matchedTerms, ["notion"]);
    assert.equal(e.reason.kind, "keywords");
    assert.equal(e.reason.author, "user_n1");
    assert.match(e.post.title, /alternative to Notion/);

    const month = (await call("testMonitor", { monitor: keywords, days: 30 })).response as any;
    assert.deepEqual(
      month.events.map((x: any) => x.post.id),
      ["reddit:n1", "reddit:n2", "reddit:n3"],
    );
    const limited = (await call("testMonitor", { monitor: keywords, days: 30, limit: 1 })).response as any;
    assert.equal(limited.events.length, 1);
    assert.equal(limited.matched, 3);
    const filtered = (await call("testMonitor", { monitor: { ...keywords, filter: { subforums: ["apps"] } } }))
      .response as any;
    assert.deepEqual(
      filtered.events.map((x: any) => x.post.id),
      ["reddit:n2"],
      "the monitor's filter applies",
    );
  });

  test("gRPC: a saved search monitor is tested without storing or sending an event", async () => {
    const created = await call("createMonitor", {
      monitor: {
        name: "notion by meaning",
        kind: "search",
        query: "alternative to Notion",
        minRelevance: 0.4,
        channels: [{ type: "webhook", url: "https://hooks.example.com/in" }],
      },
    });
    assert.equal(created.error, undefined, created.error?.details);
    const id = (created.response as any).monitor.id as string;
    const out = await call("testMonitor", { monitorId: id });
    assert.equal(out.error, undefined, out.error?.details);
    const res = out.response as any;
    const ids = res.events.map((e: any) => e.post.id);
    assert.ok(ids.includes("reddit:n1"), JSON.stringify(ids));
    assert.ok(!ids.includes("reddit:b1") && !ids.includes("reddit:b2"), "the bakery posts are not about Notion");
    for (const e of res.events) {
      assert.equal(e.monitorId, id);
      assert.ok(e.reason.relevance >= 0.4 && e.post.relevance === e.reason.relevance);
    }
    assert.equal(await svc.service.monitors.lastSeq(id), 0, "no event in the outbox");
    assert.deepEqual(((await call("listDeliveries", { monitorId: id })).response as any).deliveries, []);
  });

  test("gRPC: errors name the field and rule", async () => {
    const cases: [object, grpc.status, RegExp][] = [
      [{ monitor: keywords, days: 31 }, grpc.status.INVALID_ARGUMENT, /^days must be between 1 and 30, got 31$/],
      [{ monitor: keywords, limit: 0 }, grpc.status.INVALID_ARGUMENT, /^limit must be between 1 and 100, got 0$/],
      [{}, grpc.status.INVALID_ARGUMENT, /^monitor_id or monitor is required$/],
      [
        { monitorId: "mon_x", monitor: keywords },
        grpc.status.INVALID_ARGUMENT,
        /^give monitor_id or monitor, not both$/,
      ],
      [{ monitorId: "mon_missing" }, grpc.status.NOT_FOUND, /no monitor with id "mon_missing"/],
      [
        { monitor: { ...keywords, query: "notion AND (" } },
        grpc.status.INVALID_ARGUMENT,
        /^monitor\.query is not a valid keyword expression/,
      ],
    ];
    for (const [req, code, message] of cases) {
      const out = await call("testMonitor", req);
      assert.equal(out.error?.code, code, JSON.stringify(req));
      assert.match(out.error!.details, message);
    }
  });

  test("REST: POST /api/v1/monitors/test answers the event payloads in the envelope", async () => {
    const res = await fetch(`${svc.url}/api/v1/monitors/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ monitor: { ...keywords, query: '"alternative to notion"' }, days: 30 }),
    });
    const body = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.success, true);
    assert.equal(body.data.matched, 1);
    assert.equal(body.data.scanned, 5);
    const [e] = body.data.events;
    assert.equal(e.post.id, "reddit:n1");
    assert.equal(e.origin, "test");
    assert.deepEqual(e.reason.matched_terms, ['"alternative to notion"']);
    assert.equal(typeof e.create_time, "string");
    const bad = await fetch(`${svc.url}/api/v1/monitors/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ monitor: keywords, days: 0 }),
    });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /^days must be between 1 and 30, got 0$/);
  });
});
