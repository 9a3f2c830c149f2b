/**
 * Fault: a call's deadline expires while the index query is running (docs/RELIABILITY.md,
 * "Faults").
 *
 * Expected behaviour, written before the test:
 * - The client's deadline (gRPC `grpc-timeout`, Connect `connect-timeout-ms`; REST calls get
 *   the server's REQUEST_TIMEOUT_MS) becomes the abort signal handed to the SearchIndex call:
 *   the signal the index receives fires when the deadline passes, with the deadline as reason.
 * - The adapter gives control back as soon as the signal fires, whatever the engine is doing:
 *   a query started with an aborted signal is not run, and a query hung in the engine (Weaviate
 *   SIGSTOPped) is abandoned. The client gets DEADLINE_EXCEEDED / 504, never UNAVAILABLE and
 *   never a hang.
 * - Weaviate: the abort also cancels the gRPC call itself (weaviate-client takes no per-call
 *   signal; src/index/weaviate/connect.ts hands it one). Observable in this process's grpc-js
 *   channelz counters for the Weaviate channel: the query's call is open while Weaviate is
 *   stopped, and once the signal fires it ends as failed (cancelled) while Weaviate is still
 *   stopped, so no answer from the server can have closed it. Without the cancellation it would
 *   stay open until weaviate-client's own 30 s timer.
 * - LanceDB: the native client takes no signal, so a query already inside the engine finishes
 *   there; only our wait and every later stage (e.g. reading the posts of a ranked page) are
 *   cancelled.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import type { WeaviateNode } from "../harness/weaviate.js";
import { localWeaviateSkipReason, startWeaviateNode } from "../harness/weaviate.js";

/** What one instrumented index call saw. */
interface SeenCall {
  method: "hybrid" | "nearVector";
  signal: AbortSignal | undefined;
  abortedAt?: number;
  reason?: unknown;
  /** How the real adapter's promise ended: "resolved", or the rejection's name. */
  outcome?: string;
  /** The rejection, to compare with the signal's reason. */
  error?: unknown;
  settledAt?: number;
}

/**
 * Wraps the service's own index instance (the one SearchCore holds) so every search records the
 * signal it was given and how the real adapter call ended. `holdMs` delays the real call, as a
 * slow engine would, so the deadline passes while the index call is in progress.
 */
function instrument(index: SearchIndex, holdMs: number): SeenCall[] {
  const seen: SeenCall[] = [];
  for (const method of ["hybrid", "nearVector"] as const) {
    const real = index[method].bind(index) as (q: unknown, s?: AbortSignal) => Promise<unknown>;
    (index as unknown as Record<string, unknown>)[method] = async (query: unknown, signal?: AbortSignal) => {
      const call: SeenCall = { method, signal };
      seen.push(call);
      signal?.addEventListener(
        "abort",
        () => {
          call.abortedAt = Date.now();
          call.reason = signal.reason;
        },
        { once: true },
      );
      if (holdMs > 0) await new Promise((r) => setTimeout(r, holdMs));
      try {
        const out = await real(query, signal);
        call.outcome = "resolved";
        return out;
      } catch (err) {
        call.outcome = (err as Error).name;
        call.error = err;
        throw err;
      } finally {
        call.settledAt = Date.now();
      }
    };
  }
  return seen;
}

/** Calls this process's grpc-js channels to `port` have started, and how many ended each way. */
interface ChannelCalls {
  started: number;
  succeeded: number;
  failed: number;
}

/** Sums grpc-js channelz counters over this process's channels whose target ends in `:port`. */
async function channelCalls(port: number): Promise<ChannelCalls> {
  const handlers = grpc.getChannelzHandlers() as unknown as {
    GetTopChannels(
      call: { request: { start_channel_id: number } },
      cb: (
        err: unknown,
        res: {
          channel: { data: { target: string; calls_started: number; calls_succeeded: number; calls_failed: number } }[];
        },
      ) => void,
    ): void;
  };
  const res = await new Promise<Parameters<Parameters<typeof handlers.GetTopChannels>[1]>[1]>((resolve, reject) => {
    handlers.GetTopChannels({ request: { start_channel_id: 0 } }, (err, out) => (err ? reject(err) : resolve(out)));
  });
  const sum: ChannelCalls = { started: 0, succeeded: 0, failed: 0 };
  for (const { data } of res.channel) {
    if (!data.target.endsWith(`:${port}`)) continue;
    sum.started += Number(data.calls_started);
    sum.succeeded += Number(data.calls_succeeded);
    sum.failed += Number(data.calls_failed);
  }
  return sum;
}

/** Polls `check` every 20 ms until it holds; fails after `limitMs` (a bound, not a speed claim). */
async function until(what: string, check: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`still waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function grpcSearch(client: grpc.Client, key: string, deadlineMs: number, query: string): Promise<string> {
  const out = await callUnaryWithMetadata(
    client,
    SearchService.method.semanticSearch,
    { query, limit: 5 },
    { authorization: `Bearer ${key}` },
    { deadline: Date.now() + deadlineMs },
  );
  return out.error === undefined ? "OK" : grpc.status[out.error.code]!;
}

describe("deadlines reach the index query (LanceDB)", { skip: corporaSkip() || undefined, timeout: 120_000 }, () => {
  let dataDir: string;
  let svc: RunningService;
  let key: string;
  let client: grpc.Client;
  let seen: SeenCall[];
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-deadline-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 40 }]);
    svc = await startService({ dataDir, env: { REQUEST_TIMEOUT_MS: "1500" } });
    key = await svc.createKey("enterprise");
    client = createGrpcJsClient(SearchService, svc.address);
    seen = instrument(svc.service.index, 2_500);
  });
  after(async () => {
    client?.close();
    await svc?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("gRPC deadline: the index's signal fires, the adapter does not run the query, the client gets DEADLINE_EXCEEDED", async () => {
    seen.length = 0;
    assert.equal(await grpcSearch(client, key, 600, "a deadline in the middle of the query"), "DEADLINE_EXCEEDED");
    // The wrapped call finishes after its hold; wait for it.
    while (seen.some((c) => c.settledAt === undefined)) await new Promise((r) => setTimeout(r, 50));
    assert.equal(seen.length, 1, "one index call");
    const [call] = seen as [SeenCall];
    assert.ok(call.signal !== undefined, "the index call received an abort signal");
    assert.ok(call.abortedAt !== undefined, "the signal fired");
    assert.ok(call.abortedAt < call.settledAt!, "it fired while the index call was in progress");
    assert.ok(
      call.error !== undefined && call.error === call.reason,
      `the adapter refused to run a query whose deadline had passed: it ended with the abort reason itself (got ${call.outcome})`,
    );
    // The server's deadline timer and the client cancelling its stream at the same deadline
    // race; either one is the deadline reaching the index.
    assert.match(String(call.reason), /deadline|cancel/i, "the reason is the deadline or the client giving up at it");
  });

  test("Connect deadline (connect-timeout-ms) and REST (server REQUEST_TIMEOUT_MS) abort the index call too", async () => {
    seen.length = 0;
    const connect = await fetch(`${svc.url}/threadsight.v1.SearchService/SemanticSearch`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "600",
      },
      body: JSON.stringify({ query: "connect deadline", limit: 5 }),
    });
    assert.equal(connect.status, 504, await connect.clone().text());
    assert.equal(((await connect.json()) as { code: string }).code, "deadline_exceeded");
    const restRes = await fetch(`${svc.url}/api/v1/search/vector`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "server deadline", limit: 5, start_date: "2010-01-01", end_date: "2019-12-31" }),
    });
    assert.equal(restRes.status, 504, await restRes.clone().text());
    while (seen.length < 2 || seen.some((c) => c.settledAt === undefined)) await new Promise((r) => setTimeout(r, 50));
    for (const call of seen) {
      assert.ok(
        call.abortedAt !== undefined && call.abortedAt < call.settledAt!,
        `${call.method}: signal fired during the index call`,
      );
      assert.ok(
        call.error !== undefined && call.error === call.reason,
        `${call.method}: ended with the abort, not a result (got ${call.outcome})`,
      );
    }
  });

  test("without a deadline problem the same instrumented path answers", async () => {
    seen.length = 0;
    assert.equal(await grpcSearch(client, key, 8_000, "finding a cofounder"), "OK");
    assert.equal(seen[0]?.outcome, "resolved");
    // Connect aborts a handler's signal when the call ends; it must not fire before that.
    assert.ok(
      seen[0]!.abortedAt === undefined || seen[0]!.abortedAt >= seen[0]!.settledAt!,
      "no abort during a call within its deadline",
    );
  });
});

/** Ingest checkpoints live in the data dir: a fresh one per run, so no other suite's progress is resumed. */
const ingestDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-fault-ingest-"));
process.once("exit", () => rmSync(ingestDir, { recursive: true, force: true }));

const weaviateSkip = localWeaviateSkipReason() ?? corporaSkip();

describe("deadlines abandon a hung Weaviate query", { skip: weaviateSkip || undefined, timeout: 150_000 }, () => {
  let node: WeaviateNode;
  let svc: RunningService;
  let key: string;
  let client: grpc.Client;
  let seen: SeenCall[];
  before(async () => {
    node = await startWeaviateNode();
    const env = {
      WEAVIATE_URL: node.httpUrl,
      WEAVIATE_GRPC_URL: node.grpcUrl,
      WEAVIATE_COLLECTION: `Deadline${Date.now()}`,
    };
    await seedSample({ ...env, THREADSIGHT_DATA_DIR: ingestDir }, [
      { file: "reddit_top2013/raw_csv/startups.csv", limit: 40 },
    ]);
    svc = await startService({ env });
    key = await svc.createKey("enterprise");
    client = createGrpcJsClient(SearchService, svc.address);
    seen = instrument(svc.service.index, 0);
  });
  after(async () => {
    client?.close();
    await svc?.stop();
    await node?.stop();
  });

  test("Weaviate SIGSTOPped: the deadline ends the call with DEADLINE_EXCEEDED while the engine is still hung", async () => {
    assert.equal(await grpcSearch(client, key, 8_000, "warm up the connection"), "OK");
    seen.length = 0;
    node.pause();
    try {
      // Shorter than the liveness watch's first probe (750 ms), so the deadline decides.
      const code = await grpcSearch(client, key, 500, "a query the engine never answers");
      assert.equal(code, "DEADLINE_EXCEEDED");
      while (seen.some((c) => c.settledAt === undefined)) await new Promise((r) => setTimeout(r, 20));
      assert.equal(seen.length, 1);
      const [call] = seen as [SeenCall];
      assert.ok(call.abortedAt !== undefined, "the signal given to the Weaviate adapter fired");
      // Settled while Weaviate is still stopped, with the abort itself: not with the liveness
      // watch's IndexUnavailableError (which would come later) and not with a result.
      assert.ok(
        call.error !== undefined && call.error === call.reason,
        `the adapter returned on the abort (ended with ${call.outcome}: ${String(call.error)})`,
      );
    } finally {
      node.resume();
    }
    assert.equal(await grpcSearch(client, key, 8_000, "after the engine resumes"), "OK");
  });

  test("Weaviate SIGSTOPped: the abort cancels the gRPC call itself, which ends while the engine is still stopped", async () => {
    const index = svc.service.index;
    const query = { text: "startup", limit: 5, offset: 0 };
    await index.keyword(query);
    const port = node.grpcPort;
    const before = await channelCalls(port);
    assert.ok(before.started > 0, "the service's Weaviate channel is visible in channelz");
    node.pause();
    try {
      const caller = new AbortController();
      const outcome = index.keyword(query, caller.signal).then(
        () => "resolved",
        (err: unknown) => err,
      );
      await until(
        "the keyword query is sent to the stopped Weaviate",
        async () => (await channelCalls(port)).started > before.started,
      );
      const sent = await channelCalls(port);
      assert.equal(sent.started - sent.succeeded - sent.failed, 1, "one call open on the Weaviate channel");
      caller.abort(new Error("the caller's deadline passed"));
      assert.equal(await outcome, caller.signal.reason, "the adapter ends with the abort");
      // Weaviate is stopped, so only the client cancelling the stream can close this call.
      await until("the gRPC call to be closed by the cancellation", async () => {
        const now = await channelCalls(port);
        return now.started === now.succeeded + now.failed;
      });
      const closed = await channelCalls(port);
      assert.equal(closed.succeeded, sent.succeeded, "no answer arrived from the stopped server");
      assert.equal(closed.failed, sent.failed + 1, "the call ended as cancelled (failed)");
    } finally {
      node.resume();
    }
    assert.ok((await index.keyword(query)).length > 0, "after SIGCONT the index answers again");
  });
});
