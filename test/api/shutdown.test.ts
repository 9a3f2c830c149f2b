/**
 * SIGTERM on a real `threadsight serve` process: a call in flight completes, the process
 * refuses new work, and exits 0 within the documented bound.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import type { FakeChatServer } from "../fakes/openai-server.js";
import { startFakeChatServer } from "../fakes/openai-server.js";
import { corporaSkip, seedSample } from "../harness/seed.js";

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${buffered.slice(-2000)}`)),
      timeoutMs,
    );
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const line = buffered.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve(line);
      }
    });
  });
}

describe("graceful shutdown of threadsight serve", { skip: corporaSkip() }, () => {
  let dataDir: string;
  let fake: FakeChatServer;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sigterm-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 40 }]);
    fake = await startFakeChatServer();
  });
  after(async () => {
    await fake?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test("in-flight calls finish, then the process exits 0", async (t) => {
    const env = {
      ...process.env,
      THREADSIGHT_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      SUMMARY_LLM_URL: fake.url,
      SUMMARY_LLM_TIMEOUT_MS: "8000",
      SHUTDOWN_TIMEOUT_MS: "8000",
      EMBED_WORKERS: "1",
    };
    const keyOut = await new Promise<string>((resolve, reject) => {
      const k = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"),
          "keys",
          "create",
          "--plan",
          "pro",
          "--name",
          "sigterm",
          "--json",
        ],
        { env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      k.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
      k.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`keys create exited ${code}`))));
    });
    const key = (JSON.parse(keyOut) as { key: string }).key;

    const server = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), "serve"],
      { env, stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = new Promise<number | null>((resolve) => server.on("close", (code) => resolve(code)));
    // A failed check must not leave the server running (the test process would never end).
    t.after(() => {
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    });
    const listening = JSON.parse(await waitForLine(server, /threadsight listening/, 60_000)) as { port: number };
    const url = `http://127.0.0.1:${listening.port}`;

    // A stored post's own title as the query: its post matches above the summary's relevance
    // floor, so the summary goes to the model (a query nothing matches is summarised without it).
    const found = await fetch(`${url}/api/v1/search/vector`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "finding a cofounder", limit: 1 }),
    });
    const title = ((await found.json()) as { data: { results: { title: string }[] } }).data.results[0]?.title;
    assert.ok(title, "the sample holds a post to search for");
    fake.behave({ kind: "complete", content: "A slow but fine summary [1].", delayMs: 1500 });
    const inflight = fetch(`${url}/api/v1/search/semantic`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query: title, limit: 3 }),
    });
    // Let the call reach the summary model, then ask the server to stop.
    const deadline = Date.now() + 10_000;
    while (fake.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(fake.requests.length, 1, "the call reached the summary model");
    const signalledAt = Date.now();
    server.kill("SIGTERM");

    const res = await inflight;
    assert.equal(res.status, 200);
    assert.equal(
      ((await res.json()) as { data: { ai_summary: string } }).data.ai_summary,
      "A slow but fine summary [1].",
    );

    const code = await exited;
    assert.equal(code, 0);
    assert.ok(Date.now() - signalledAt < 8_000, "exited within SHUTDOWN_TIMEOUT_MS");
    await assert.rejects(fetch(`${url}/healthz`), "the port is closed after exit");
  });
});

describe("shutdown after a request the client abandoned mid-body", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sigterm-abort-"));
  });
  after(async () => rm(dataDir, { recursive: true, force: true }));

  test("SIGTERM exits 0 within SHUTDOWN_TIMEOUT_MS and still closes the index and stores", async () => {
    // The default bound: with it the old wait outlasted Fastify's own close timeout.
    const shutdownTimeoutMs = 10_000;
    const env = {
      ...process.env,
      THREADSIGHT_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
      EMBED_WORKERS: "1",
    };
    const server = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), "serve"],
      { env, stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    server.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c));
    const exited = new Promise<number | null>((resolve) => server.on("close", (code) => resolve(code)));
    try {
      // Start-up loads the embedder; on a loaded two-core machine that alone can take a minute.
      const listening = JSON.parse(await waitForLine(server, /threadsight listening/, 150_000)) as { port: number };

      // POST announcing 1000 bytes, send 10, hang up.
      const socket = net.connect(listening.port, "127.0.0.1");
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      socket.write(
        "POST /api/v1/search/semantic HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
      );
      socket.write('{"query":"');
      await new Promise((r) => setTimeout(r, 300));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 300));

      const signalledAt = Date.now();
      server.kill("SIGTERM");
      const code = await Promise.race([
        exited,
        new Promise<"hung">((r) => setTimeout(() => r("hung"), shutdownTimeoutMs + 5_000)),
      ]);
      const took = Date.now() - signalledAt;
      assert.equal(code, 0, `exit: ${code} after ${took} ms\n${output.slice(-2000)}`);
      assert.ok(took < shutdownTimeoutMs, `exited after ${took} ms`);
      assert.doesNotMatch(output, /shutdown failed/);
      assert.match(output, /index and stores closed/);
    } finally {
      server.kill("SIGKILL");
    }
  });
});
