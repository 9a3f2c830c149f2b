/**
 * Fault: SIGTERM to a real `threadsight serve` process while many calls are in flight and new
 * ones keep arriving (docs/RELIABILITY.md, "Faults"). test/api/shutdown.test.ts covers one call.
 *
 * Expected behaviour, written before the test:
 * - Every call in flight when the signal arrives (REST and gRPC, 12 at once, each held ~2 s by
 *   a slow summary model) completes with 200 / OK and its full answer.
 * - Calls started after the server announced the shutdown are refused cleanly: 503 (REST), or
 *   UNAVAILABLE (gRPC, on the already-open HTTP/2 connection), or the connection is refused
 *   once the port has closed. None is served, none hangs, none gets a 5xx other than 503.
 * - The process exits 0 within SHUTDOWN_TIMEOUT_MS (plus process teardown).
 * - Calls that would outlast SHUTDOWN_TIMEOUT_MS are ended at the bound with an answer (503 /
 *   UNAVAILABLE, or 200 from the extractive fallback), never a reset connection or a hang, and
 *   the process still exits 0 within SHUTDOWN_TIMEOUT_MS + 1 s (the aborted calls' grace to
 *   write their answer).
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import type { FakeChatServer } from "../fakes/openai-server.js";
import { startFakeChatServer } from "../fakes/openai-server.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { corporaSkip, runCli, seedSample } from "../harness/seed.js";

const CLI = path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts");
/** Slack over SHUTDOWN_TIMEOUT_MS for closing stores and the process exiting. */
const EXIT_SLACK_MS = 3_000;

/** A `serve` child and the times its stdout announced things. */
interface ServeProcess {
  child: ChildProcess;
  url: string;
  address: string;
  /** When the "shutting down" line arrived (0 before). */
  shuttingDownAt(): number;
  /** Log lines containing `text`, for assertion messages. */
  linesWith(text: string): string[];
  exited: Promise<{ code: number | null; at: number }>;
}

async function serve(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, "serve"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("close", (code) => resolve({ code, at: Date.now() })),
  );
  let shutdownAt = 0;
  let buffered = "";
  const lines: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not listen within 60 s:\n${buffered.slice(-2000)}`)),
      60_000,
    );
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      lines.push(
        ...chunk.split("\n").filter((l) => l.includes("warn") || l.includes("error") || l.includes("fell back")),
      );
      if (shutdownAt === 0 && buffered.includes("shutting down")) shutdownAt = Date.now();
      const line = buffered.split("\n").find((l) => l.includes("threadsight listening"));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
      if (buffered.length > 100_000) buffered = buffered.slice(-10_000);
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    shuttingDownAt: () => shutdownAt,
    linesWith: (text) => lines.filter((l) => l.includes(text)),
    exited,
  };
}

type Result = { started: number; status: number | string; summary?: string };

async function restCall(url: string, key: string, query: string): Promise<Result> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query, limit: 3 }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as { data?: { ai_summary: string } };
    return { started, status: res.status, summary: body.data?.ai_summary };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { started, status: cause?.code ?? (err as Error).name };
  }
}

async function grpcCall(client: grpc.Client, key: string, query: string): Promise<Result> {
  const started = Date.now();
  const out = await callUnaryWithMetadata(
    client,
    SearchService.method.semanticSearch,
    { query, limit: 3 },
    { authorization: `Bearer ${key}` },
    { deadline: Date.now() + 30_000 },
  );
  return out.error === undefined
    ? { started, status: "OK", summary: out.response!.aiSummary }
    : { started, status: grpc.status[out.error.code]! };
}

describe("SIGTERM under load", { skip: corporaSkip() || undefined, timeout: 180_000 }, () => {
  let dataDir: string;
  let fake: FakeChatServer;
  let key: string;
  let baseEnv: NodeJS.ProcessEnv;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sigterm-load-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 40 }]);
    fake = await startFakeChatServer();
    baseEnv = {
      ...process.env,
      THREADSIGHT_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      SUMMARY_LLM_URL: fake.url,
      SUMMARY_LLM_TIMEOUT_MS: "20000",
      EMBED_WORKERS: "1",
    };
    const created = await runCli(
      ["keys", "create", "--plan", "enterprise", "--name", "sigterm-load", "--json"],
      baseEnv as Record<string, string>,
    );
    assert.equal(created.code, 0, created.stderr);
    key = (JSON.parse(created.stdout) as { key: string }).key;
  });
  after(async () => {
    await fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("in-flight calls complete, new ones are refused, exit 0 within SHUTDOWN_TIMEOUT_MS", async (t) => {
    const shutdownTimeoutMs = 8_000;
    const server = await serve({ ...baseEnv, SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) });
    const client = createGrpcJsClient(SearchService, server.address);
    try {
      fake.behave({ kind: "complete", content: "A held but complete summary [1].", delayMs: 0 });
      assert.equal((await grpcCall(client, key, "open the HTTP/2 connection")).status, "OK");
      fake.behave({ kind: "complete", content: "A held but complete summary [1].", delayMs: 2_000 });
      // Stored posts' own titles as the queries: each matches above the summary's relevance floor,
      // so every call goes to the model (a query nothing matches is summarised without it).
      const found = await fetch(`${server.url}/api/v1/search/vector`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "startup", limit: 12 }),
      });
      const titles = ((await found.json()) as { data: { results: { title: string }[] } }).data.results.map(
        (r) => r.title,
      );
      assert.equal(titles.length, 12, "the sample holds 12 posts to search for");
      const before = fake.requests.length;
      const inflight = titles.map((title, i) =>
        i % 2 === 0 ? restCall(server.url, key, title) : grpcCall(client, key, title),
      );
      const deadline = Date.now() + 20_000;
      while (fake.requests.length - before < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(fake.requests.length - before, 12, "all 12 calls reached the summary model");

      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      // New calls keep arriving, over new REST connections and the open gRPC connection.
      const late: Promise<Result>[] = [];
      let n = 0;
      while (server.child.exitCode === null && Date.now() - signalledAt < shutdownTimeoutMs + EXIT_SLACK_MS) {
        late.push(n % 2 === 0 ? restCall(server.url, key, `late ${n}`) : grpcCall(client, key, `late ${n}`));
        n++;
        await new Promise((r) => setTimeout(r, 50));
      }

      const done = await Promise.all(inflight);
      for (const r of done) {
        assert.ok(r.status === 200 || r.status === "OK", `an in-flight call ended with ${r.status}`);
        assert.equal(r.summary, "A held but complete summary [1].", server.linesWith("").slice(-5).join("\n"));
      }
      const { code, at } = await server.exited;
      assert.equal(code, 0);
      assert.ok(at - signalledAt < shutdownTimeoutMs + EXIT_SLACK_MS, `exited ${at - signalledAt} ms after SIGTERM`);

      const announced = server.shuttingDownAt();
      assert.ok(announced > 0, "the server announced the shutdown");
      const lateResults = await Promise.all(late);
      const afterAnnounce = lateResults.filter((r) => r.started > announced);
      assert.ok(afterAnnounce.length >= 5, `calls started after the announcement: ${afterAnnounce.length}`);
      const refusedCleanly = new Set<number | string>([
        503,
        "UNAVAILABLE",
        "ECONNREFUSED",
        "ECONNRESET",
        "UND_ERR_SOCKET",
      ]);
      const counts: Record<string, number> = {};
      for (const r of afterAnnounce) counts[String(r.status)] = (counts[String(r.status)] ?? 0) + 1;
      t.diagnostic(
        `late calls after the announcement: ${JSON.stringify(counts)}; exit ${at - signalledAt} ms after SIGTERM`,
      );
      for (const r of afterAnnounce)
        assert.ok(
          refusedCleanly.has(r.status),
          `a call started after the shutdown began ended with ${r.status}: ${JSON.stringify(counts)}`,
        );
    } finally {
      client.close();
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  });

  test("calls longer than SHUTDOWN_TIMEOUT_MS are ended at the bound; exit 0 within it", async (t) => {
    const shutdownTimeoutMs = 2_000;
    const server = await serve({ ...baseEnv, SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) });
    const client = createGrpcJsClient(SearchService, server.address);
    try {
      fake.behave({ kind: "complete", content: "Too slow [1].", delayMs: 15_000 });
      const before = fake.requests.length;
      const inflight = Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? restCall(server.url, key, `long ${i}`) : grpcCall(client, key, `long ${i}`),
      );
      const deadline = Date.now() + 20_000;
      while (fake.requests.length - before < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const signalledAt = Date.now();
      server.child.kill("SIGTERM");
      const done = await Promise.all(inflight);
      const { code, at } = await server.exited;
      assert.equal(code, 0);
      assert.ok(at - signalledAt < shutdownTimeoutMs + EXIT_SLACK_MS, `exited ${at - signalledAt} ms after SIGTERM`);
      t.diagnostic(
        `long calls ended with ${JSON.stringify(done.map((r) => r.status))}; exit ${at - signalledAt} ms after SIGTERM`,
      );
      // Each was answered: served from the extractive fallback when the model call was cut, or
      // refused as UNAVAILABLE; never left hanging, never an internal error.
      for (const r of done)
        assert.ok([200, "OK", 503, "UNAVAILABLE"].includes(r.status), `a long call ended with ${r.status}`);
    } finally {
      client.close();
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  });
});
