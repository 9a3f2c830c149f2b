/**
 * A receiver down for 10 minutes and back, over the production retry schedule (DEFAULT_RETRY,
 * with its jitter) and an injected clock: the worker and percolator read a simulated time that
 * the test advances a second per pass, so the outage spans the schedule's real steps (10 s, 20 s,
 * 40 s ... between attempts) in well under a second of wall time. The receiver is a real loopback
 * server whose port is closed during the outage (connections are refused) and reopened after.
 * Expected: every event of every monitor arrives, in write order per monitor, once each, with the
 * head of each queue retried through the outage, none dead-lettered and no monitor paused.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { IndexedPost } from "../../src/model/post.js";
import { DeliveryWorker } from "../../src/monitors/delivery-worker.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { DEFAULT_RETRY, retryStep } from "../../src/monitors/retry-schedule.js";
import { openSqliteMonitorStore } from "../../src/monitors/sqlite-monitor-store.js";
import { verifySignature } from "../../src/monitors/webhook-signature.js";
import { forumPost, noEmbedding } from "./monitor-fixtures.js";

const OUTAGE_MS = 10 * 60_000;
/** (monitor, post) matches among the posts below. */
const EVENTS = 12;

function post(n: number, title: string): IndexedPost {
  return forumPost(`o${n}`, { title, author: "sam", upvotes: 1, comments: 0 });
}

/** A loopback receiver on a fixed port that can be taken down (port closed) and brought back. */
function outageReceiver(port: number, verify: (sig: string, raw: string, monitorId: string) => boolean) {
  const received: { monitorId: string; id: string }[] = [];
  const badSignatures: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(raw) as { id: string; monitor_id: string };
      if (!verify(String(req.headers["threadsight-signature"]), raw, body.monitor_id)) badSignatures.push(body.id);
      received.push({ monitorId: body.monitor_id, id: body.id });
      res.writeHead(200).end();
    });
  });
  return {
    received,
    badSignatures,
    up: () => new Promise<void>((r) => server.listen(port, "127.0.0.1", r)),
    down: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    get listening() {
      return server.listening;
    },
  };
}

/** A free loopback port (bound, then released). */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let dir: string;
let store: MonitorStore;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-outage-"));
  store = openSqliteMonitorStore(path.join(dir, "monitors.sqlite"));
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

test("a receiver down for 10 minutes gets everything afterwards, in order per monitor (production schedule)", async (t) => {
  const start = Date.now();
  let now = start;
  const clock = () => now;
  const core = new MonitorsCore(store, clock);
  const owner = { accountId: "acct_outage", maxActiveMonitors: null, planName: "Test" };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hook`;
  const secrets = new Map<string, string>();
  for (const word of ["alpha", "beta", "gamma"]) {
    const made = await core.create(owner, {
      name: word,
      kind: "keywords",
      query: word,
      minRelevance: 0.5,
      minScore: 50,
      filter: emptyFilter(),
      channels: [{ type: "webhook", url, email: "", emailMode: "instant" }],
      paused: false,
    });
    secrets.set(made.monitor.id, made.secret);
  }
  const rx = outageReceiver(port, (sig, raw, monitorId) =>
    verifySignature(sig, raw, secrets.get(monitorId) ?? "", Math.floor(now / 1000)),
  );
  const percolate = monitorPercolator({
    store,
    embedder: noEmbedding,
    alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
    clock,
  });
  const worker = new DeliveryWorker({ store, allowPrivate: true, clock, retry: DEFAULT_RETRY, timeoutMs: 2_000 });
  // Posts keep arriving during the outage: at its start, after 2 and after 7 minutes.
  const writes = new Map<number, IndexedPost[]>([
    [0, [post(1, "alpha beta"), post(2, "gamma"), post(3, "alpha gamma")]],
    [2 * 60_000, [post(4, "beta"), post(5, "alpha beta gamma")]],
    [7 * 60_000, [post(6, "alpha"), post(7, "gamma beta")]],
  ]);
  const expected = new Map<string, string[]>();
  try {
    const end = start + OUTAGE_MS + 30 * 60_000;
    while (now < end) {
      const batch = writes.get(now - start);
      if (batch !== undefined) await percolate(batch, "ingest");
      if (!rx.listening && now - start >= OUTAGE_MS) await rx.up();
      await worker.tick();
      now += 1_000;
      if (now - start > OUTAGE_MS && rx.received.length === EVENTS) break;
    }
  } finally {
    if (rx.listening) await rx.down();
  }
  for (const id of secrets.keys()) {
    const events = await store.eventsAfter(id, 0, 100);
    expected.set(
      id,
      events.map((e) => e.id),
    );
  }
  const total = [...expected.values()].reduce((n, ids) => n + ids.length, 0);
  assert.equal(total, EVENTS, "alpha, beta and gamma each matched 4 posts");
  assert.deepEqual(rx.badSignatures, [], "every body verifies with its monitor's secret");
  for (const [id, ids] of expected) {
    const got = rx.received.filter((r) => r.monitorId === id).map((r) => r.id);
    assert.deepEqual(got, ids, `monitor ${id}: every event once, in write order`);
    const m = await store.byId(id);
    assert.equal(m!.paused, false, "not paused");
    const attempts = (await store.attempts(id, "", undefined, 1000)).reverse();
    assert.equal(attempts.filter((a) => a.status === "dead_lettered").length, 0, "nothing dead-lettered");
    const failed = attempts.filter((a) => a.status === "failed");
    assert.ok(failed.length >= 6, `the head was retried through the outage: ${failed.length} failed attempts`);
    assert.ok(
      failed.every((a) => a.at - start < OUTAGE_MS && /ECONNREFUSED/.test(a.error)),
      "every failure fell in the outage, refused",
    );
    // The gaps between failed attempts follow the schedule: attempt n waits [step/2, step].
    for (let i = 1; i < failed.length; i++) {
      const gap = failed[i]!.at - failed[i - 1]!.at;
      const step = retryStep(failed[i - 1]!.attempt, DEFAULT_RETRY);
      assert.ok(gap >= step / 2 && gap <= step + 1_000, `gap ${gap} ms after attempt ${i} (step ${step} ms)`);
    }
    const firstOk = attempts.find((a) => a.status === "delivered")!;
    const lastFail = failed.at(-1)!;
    t.diagnostic(
      `${id}: failed at ${failed.map((a) => Math.round((a.at - start) / 1000)).join(", ")} s; delivered from ${Math.round((firstOk.at - start) / 1000)} s`,
    );
    assert.ok(firstOk.at >= start + OUTAGE_MS, "nothing delivered while down");
    assert.ok(
      firstOk.at - lastFail.at <= retryStep(lastFail.attempt, DEFAULT_RETRY) + 1_000,
      "the first try after the outage came on schedule",
    );
  }
});
