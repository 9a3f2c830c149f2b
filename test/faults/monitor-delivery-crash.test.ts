/**
 * Fault: monitor deliveries from a real `threadsight serve` process to a real loopback webhook
 * receiver that verifies every signature, with the posts written by a real `threadsight ingest`
 * running beside the server (docs/guides/monitors.md, "Durability").
 *
 * Expected behaviour, written before the test:
 * - SIGKILL mid-delivery: the server is killed while the receiver holds requests it has read but
 *   not answered. Restarted on the same data directory, it sends those again (their delivery rows
 *   were never marked delivered) and then the rest: counted by event id, every event in the outbox
 *   reaches the receiver at least once, nothing else arrives, and each monitor's receipts are in
 *   write order (a repeat only of the event the kill interrupted).
 * - Receiver down and back: with the retry schedule compressed through MONITORS_RETRY_* (50 ms
 *   doubling, capped at 500 ms), an outage of several seconds spans more retry steps than the
 *   production schedule (10 s doubling) takes over 10 minutes (6 or 7); once the receiver is back,
 *   every event arrives once, in write order per monitor, and nothing is dead-lettered.
 *   test/monitors/receiver-outage.test.ts runs the full 10 minutes on the production schedule
 *   with an injected clock.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { openSqliteMonitorStore } from "../../src/monitors/sqlite-monitor-store.js";
import { verifySignature } from "../../src/monitors/webhook-signature.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { runCli, runIngest } from "../harness/seed.js";

const CLI = path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts");
const MONITORS_DB = "monitors.sqlite";

/** A `serve` child on an ephemeral port. */
interface ServeProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  tail(): string;
}

async function serve(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, "serve"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  let buffered = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (buffered = (buffered + c).slice(-20_000)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen within 90 s:\n${buffered}`)), 90_000);
    child.on("close", () => reject(new Error(`serve exited before listening:\n${buffered}`)));
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      buffered = (buffered + chunk).slice(-20_000);
      const line = buffered.split("\n").find((l) => l.includes("threadsight listening"));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, exited, tail: () => buffered.slice(-3_000) };
}

/** One receipt: which monitor's event arrived. */
interface Receipt {
  monitorId: string;
  id: string;
}

/** A webhook receiver on a fixed loopback port; it can be taken down (port closed) and back. */
function receiver(port: number, holdMs: number) {
  const secrets = new Map<string, string>();
  const receipts: Receipt[] = [];
  const badSignatures: string[] = [];
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(raw) as { id: string; monitor_id: string };
      const signature = String(req.headers["threadsight-signature"]);
      const secret = secrets.get(body.monitor_id) ?? "";
      if (!verifySignature(signature, raw, secret, Math.floor(Date.now() / 1000))) badSignatures.push(body.id);
      receipts.push({ monitorId: body.monitor_id, id: body.id });
      inFlight += 1;
      // Held before answering, so a kill finds requests read but not yet answered.
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(200).end("ok");
      }, holdMs);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    secrets,
    receipts,
    badSignatures,
    inFlight: () => inFlight,
    up: () => new Promise<void>((r) => server.listen(port, "127.0.0.1", r)),
    down: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    listening: () => server.listening,
  };
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function until(cond: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const now = Math.floor(Date.now() / 1000);
const WORDS = ["notion", "airtable", "hubspot"] as const;

/** `n` Reddit NDJSON posts; post i names WORDS[i % 3], and every fourth also WORDS[(i + 1) % 3]. */
function postsFile(dir: string, n: number, tag: string): { file: string; matches: Map<string, number> } {
  const matches = new Map<string, number>(WORDS.map((w) => [w, 0]));
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = [WORDS[i % 3]!, ...(i % 4 === 0 ? [WORDS[(i + 1) % 3]!] : [])];
    for (const w of words) matches.set(w, matches.get(w)! + 1);
    lines.push(
      JSON.stringify({
        id: `${tag}${i}`,
        subreddit: "SaaS",
        title: `Question ${i} about ${words.join(" and ")} for our team`,
        selftext: "We are a small team comparing tools.",
        author: `user_${i}`,
        score: 3,
        num_comments: 1,
        created_utc: now - i * 60,
        permalink: `/r/SaaS/comments/${tag}${i}/x/`,
      }),
    );
  }
  const file = path.join(dir, `${tag}.ndjson`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { file, matches };
}

async function createKey(env: Record<string, string>): Promise<string> {
  const created = await runCli(["keys", "create", "--plan", "enterprise", "--name", "monitor-faults", "--json"], env);
  assert.equal(created.code, 0, created.stderr);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

async function post(url: string, key: string, route: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; data: Record<string, unknown>; error?: unknown };
  assert.equal(res.status, 200, `${route}: ${JSON.stringify(json)}`);
  return json.data;
}

/** Creates one keyword monitor per word, pointed at the receiver; returns word -> monitor id. */
async function createMonitors(url: string, key: string, rx: ReturnType<typeof receiver>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const word of WORDS) {
    const data = await post(url, key, "/api/v1/monitors", {
      monitor: { name: word, kind: "keywords", query: word, channels: [{ type: "webhook", url: rx.url }] },
    });
    const id = (data.monitor as { id: string }).id;
    rx.secrets.set(id, data.signing_secret as string);
    ids.set(word, id);
  }
  return ids;
}

/** The outbox's event ids per monitor, in write order (read after the server has exited). */
async function outbox(dataDir: string, monitorIds: Iterable<string>): Promise<Map<string, string[]>> {
  const store = openSqliteMonitorStore(path.join(dataDir, MONITORS_DB));
  try {
    const out = new Map<string, string[]>();
    for (const id of monitorIds)
      out.set(
        id,
        (await store.eventsAfter(id, 0, 10_000)).map((e) => e.id),
      );
    return out;
  } finally {
    await store.close();
  }
}

/** Each receipt is the next event of its monitor or a repeat of the one before it. */
function assertInOrder(receipts: readonly Receipt[], expected: ReadonlyMap<string, string[]>): void {
  for (const [monitorId, ids] of expected) {
    const got = receipts.filter((r) => r.monitorId === monitorId).map((r) => r.id);
    const unique = [...new Set(got)];
    assert.deepEqual(unique, ids, `monitor ${monitorId}: every outbox event, in write order, nothing else`);
    for (let i = 1; i < got.length; i++)
      assert.ok(got[i]! >= got[i - 1]!, `monitor ${monitorId}: ${got[i]} arrived after ${got[i - 1]}`);
  }
}

function baseEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    THREADSIGHT_DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    EMBED_WORKERS: "1",
    MONITORS_ALLOW_PRIVATE_WEBHOOKS: "true",
    ...extra,
  };
}

describe("monitor delivery faults", { timeout: 600_000 }, () => {
  test("SIGKILL mid-delivery: after a restart every event is delivered at least once, in order", async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-monitor-kill-"));
    const rx = receiver(await freePort(), 250);
    await rx.up();
    const env = baseEnv(dataDir);
    const servers: ServeProcess[] = [];
    try {
      const key = await createKey(env);
      const first = await serve(env);
      servers.push(first);
      const ids = await createMonitors(first.url, key, rx);
      const { file, matches } = postsFile(dataDir, 36, "k");
      const total = [...matches.values()].reduce((a, b) => a + b, 0);
      // Written by an ingest beside the running server, as an operator would.
      const ingest = await runIngest([file], env);
      assert.equal(ingest.code, 0, ingest.stderr);
      await until(
        () => rx.receipts.length >= total / 4 && rx.inFlight() > 0,
        `a quarter delivered and one in flight (${first.tail()})`,
        60_000,
      );
      const heldAtKill = rx.inFlight();
      const beforeKill = rx.receipts.length;
      first.child.kill("SIGKILL");
      assert.equal((await first.exited).signal, "SIGKILL");
      assert.ok(beforeKill < total, `the kill came mid-delivery (${beforeKill} of ${total} received)`);

      const second = await serve(env);
      servers.push(second);
      await until(
        () => new Set(rx.receipts.map((r) => r.id)).size >= total,
        `all ${total} events after the restart (${second.tail()})`,
        90_000,
      );
      // A moment more, so an event sent twice after this point would be seen too.
      await new Promise((r) => setTimeout(r, 1_000));
      second.child.kill("SIGTERM");
      assert.equal((await second.exited).code, 0, second.tail());

      const expected = await outbox(dataDir, ids.values());
      for (const [word, id] of ids) assert.equal(expected.get(id)!.length, matches.get(word), `${word}'s events`);
      assert.deepEqual(rx.badSignatures, [], "every body verified with its monitor's secret");
      assertInOrder(rx.receipts, expected);
      const counts = new Map<string, number>();
      for (const r of rx.receipts) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
      const repeated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
      // The requests the receiver held when the server died were never answered, so they went again.
      assert.ok(repeated.length >= 1, "an event interrupted by the kill was sent again");
      assert.ok(repeated.length <= heldAtKill, `repeats ${repeated} beyond the ${heldAtKill} held at the kill`);
      t.diagnostic(
        `${total} events; ${beforeKill} received before SIGKILL (${heldAtKill} unanswered); ${rx.receipts.length} receipts in all, repeated: ${repeated.join(", ")}`,
      );
    } finally {
      for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
      await Promise.all(servers.map((s) => s.exited));
      if (rx.listening()) await rx.down();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("receiver down across many retry steps (compressed schedule) and back: all arrive in order", async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-monitor-outage-"));
    const rx = receiver(await freePort(), 0);
    const env = baseEnv(dataDir, {
      MONITORS_RETRY_BASE_MS: "50",
      MONITORS_RETRY_MAX_DELAY_MS: "500",
      MONITORS_RETRY_WINDOW_MS: "300000",
    });
    let server: ServeProcess | undefined;
    try {
      const key = await createKey(env);
      server = await serve(env);
      const ids = await createMonitors(server.url, key, rx);
      const { file, matches } = postsFile(dataDir, 24, "d");
      const total = [...matches.values()].reduce((a, b) => a + b, 0);
      // The receiver is down (its port closed) from before the posts are written.
      const ingest = await runIngest([file], env);
      assert.equal(ingest.code, 0, ingest.stderr);
      const downFor = 6_000;
      await new Promise((r) => setTimeout(r, downFor));
      await rx.up();
      await until(
        () => rx.receipts.length >= total,
        `all ${total} events after the outage (${server!.tail()})`,
        60_000,
      );
      await new Promise((r) => setTimeout(r, 500));
      // Failed attempts per monitor, over the REST ListDeliveries the owner would read.
      const failedPerMonitor: number[] = [];
      for (const id of ids.values()) {
        const failed = await post(server.url, key, "/api/v1/monitors/deliveries", {
          monitor_id: id,
          status: "failed",
          page_size: 100,
        });
        const rows = failed.deliveries as { error: string }[];
        failedPerMonitor.push(rows.length);
        assert.ok(rows.length >= 7, `the head of ${id} was retried through the outage: ${rows.length} failures`);
        assert.ok(
          rows.every((r) => /ECONNREFUSED/.test(r.error)),
          rows.map((r) => r.error).join("; "),
        );
        const dead = await post(server.url, key, "/api/v1/monitors/deliveries", {
          monitor_id: id,
          status: "dead_lettered",
        });
        assert.deepEqual(dead.deliveries, [], "nothing dead-lettered");
      }
      server.child.kill("SIGTERM");
      assert.equal((await server.exited).code, 0, server.tail());
      const expected = await outbox(dataDir, ids.values());
      assert.equal(
        [...expected.values()].reduce((n, x) => n + x.length, 0),
        total,
      );
      assert.deepEqual(rx.badSignatures, []);
      assertInOrder(rx.receipts, expected);
      assert.equal(rx.receipts.length, total, "no crash, so each event once");
      t.diagnostic(`${total} events; receiver down ${downFor} ms after the write; failed attempts ${failedPerMonitor}`);
    } finally {
      if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null)
        server.child.kill("SIGKILL");
      await server?.exited;
      if (rx.listening()) await rx.down();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
