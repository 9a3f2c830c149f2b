/**
 * Delivery against real receivers on loopback: events written by the percolator from an upsert
 * outcome reach a webhook that verifies the signature, in order; a receiver that answers 500 for
 * a while gets everything once it recovers, still in order; one that redirects or hangs is
 * retried and, when the window ends, the event is dead-lettered and the monitor paused with a
 * reason; loopback is refused unless allowed. Runs on both stores: SQLite with the polling runner
 * and PostgreSQL with the pg-boss queue.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import type { IndexedPost } from "../../src/model/post.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { verifySignature } from "../../src/monitors/webhook-signature.js";
import type { OpenBackend } from "../harness/monitor-backends.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import { forumPost, noEmbedding } from "./monitor-fixtures.js";

function post(n: number, title: string): IndexedPost {
  return forumPost(`p${n}`, { title, url: `https://example.com/${n}` });
}

interface Receiver {
  url: string;
  bodies: { id: string; signature: string; raw: string }[];
  close(): Promise<void>;
}

async function receiver(answer: (n: number, res: http.ServerResponse) => void): Promise<Receiver> {
  const bodies: Receiver["bodies"] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      n += 1;
      bodies.push({
        id: (JSON.parse(raw) as { id: string }).id,
        signature: String(req.headers["threadsight-signature"]),
        raw,
      });
      answer(n, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    bodies,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(cond: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const backend of await monitorBackends())
  describe(`monitor delivery to loopback receivers (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let store: MonitorStore;
    let core: MonitorsCore;
    const owner = { accountId: "acct_test", maxActiveMonitors: null, planName: "Test" };
    before(async () => {
      opened = await backend.open();
      store = opened.store;
      core = new MonitorsCore(store);
    });
    after(async () => {
      await opened?.close();
    });

    async function monitorFor(url: string, query = "notion") {
      return core.create(owner, {
        name: `m ${url}`,
        kind: "keywords",
        query,
        minRelevance: 0.5,
        minScore: 50,
        filter: emptyFilter(),
        channels: [{ type: "webhook", url, email: "", emailMode: "instant" }],
        paused: false,
      });
    }

    test("signed, in order, once per (monitor, post); a 500 phase is retried until it recovers", async () => {
      const ok = await receiver((_n, res) => res.writeHead(200).end("ok"));
      const flaky = await receiver((n, res) => res.writeHead(n <= 3 ? 500 : 200).end());
      const a = await monitorFor(ok.url);
      const b = await monitorFor(flaky.url);
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
      });
      await percolate(
        [post(1, "Notion is slow"), post(2, "Nothing here"), post(3, "Leaving Notion"), post(4, "notion pricing")],
        "ingest",
      );
      // The same posts written again (a rerun after a crash) make no second event.
      await percolate([post(1, "Notion is slow")], "ingest");
      const worker = opened.runner({
        allowPrivate: true,
        pollMs: 10,
        retry: { baseDelayMs: 20, maxDelayMs: 100, retryWindowMs: 60_000 },
      });
      worker.start();
      try {
        await until(() => ok.bodies.length >= 3 && flaky.bodies.length >= 6, "both receivers");
      } finally {
        await worker.stop();
      }
      const now = Math.floor(Date.now() / 1000);
      assert.equal(ok.bodies.length, 3);
      for (const b of ok.bodies) assert.ok(verifySignature(b.signature, b.raw, a.secret, now), `signature of ${b.id}`);
      assert.ok(
        !verifySignature(ok.bodies[0]!.signature, ok.bodies[0]!.raw + " ", a.secret, now),
        "a changed body fails verification",
      );
      const ids = ok.bodies.map((x) => x.id);
      assert.deepEqual(ids, [...ids].sort(), "in write order");
      const event = JSON.parse(ok.bodies[0]!.raw);
      assert.equal(event.monitor_id, a.monitor.id);
      assert.equal(event.post.id, "reddit:p1");
      assert.equal(event.post.title, "Notion is slow");
      assert.deepEqual(event.reason.matched_terms, ["notion"]);
      assert.equal(event.origin, "ingest");
      // The flaky receiver saw event 1 three times (500s), then each event in order, once each.
      const seen = flaky.bodies.map((x) => x.id);
      assert.deepEqual(seen.slice(3), [...new Set(seen)], `${seen}`);
      assert.equal(new Set(seen).size, 3);
      const attempts = await store.attempts(b.monitor.id, "", undefined, 100);
      assert.deepEqual(attempts.map((x) => `${x.status}:${x.responseCode}`).reverse(), [
        "failed:500",
        "failed:500",
        "failed:500",
        "delivered:200",
        "delivered:200",
        "delivered:200",
      ]);
      await ok.close();
      await flaky.close();
    });

    test("a redirect and a hang are failures; past the window the event is dead-lettered and the monitor paused", async () => {
      const redirect = await receiver((_n, res) => res.writeHead(302, { location: "http://169.254.169.254/" }).end());
      const hang = await receiver(() => undefined);
      const r = await monitorFor(redirect.url, "redirect");
      const h = await monitorFor(hang.url, "hang");
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
      });
      await percolate([post(10, "redirect me"), post(11, "hang me")], "sync");
      const worker = opened.runner({
        allowPrivate: true,
        pollMs: 10,
        timeoutMs: 300,
        retry: { baseDelayMs: 10, maxDelayMs: 20, retryWindowMs: 500 },
      });
      worker.start();
      try {
        await until(
          async () => (await store.byId(r.monitor.id))!.paused && (await store.byId(h.monitor.id))!.paused,
          "both monitors paused",
        );
      } finally {
        await worker.stop();
      }
      const [last] = await store.attempts(r.monitor.id, "dead_lettered", undefined, 1);
      assert.equal(last!.responseCode, 302);
      assert.match(last!.error, /redirects are not followed/);
      assert.equal(redirect.bodies.length > 1, true, "retried before giving up");
      assert.match((await store.byId(r.monitor.id))!.pausedReason, /kept failing .* dead-lettered/);
      const [hung] = await store.attempts(h.monitor.id, "dead_lettered", undefined, 1);
      assert.match(hung!.error, /no answer within 300 ms/);
      // RedeliverEvent queues it again; once resumed it goes out.
      assert.equal(await store.redeliver(r.monitor.id, last!.eventId, Date.now()), true);
      assert.equal((await store.due(Date.now(), 10)).length, 0, "a paused monitor's queue waits");
      await redirect.close();
      await hang.close();
    });

    test("loopback and private addresses are refused unless allowed", async () => {
      const ok = await receiver((_n, res) => res.writeHead(200).end());
      const m = await monitorFor(ok.url, "ssrf");
      const byName = await monitorFor(ok.url.replace("127.0.0.1", "localhost"), "ssrfname");
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
      });
      await percolate([post(20, "ssrf ssrfname")], "ingest");
      const worker = opened.runner({
        allowPrivate: false,
        retry: { baseDelayMs: 10_000, maxDelayMs: 10_000, retryWindowMs: 60_000 },
      });
      await worker.tick();
      assert.equal(ok.bodies.length, 0);
      const [lit] = await store.attempts(m.monitor.id, "", undefined, 1);
      assert.match(lit!.error, /127\.0\.0\.1 is a private or loopback address/);
      const [named] = await store.attempts(byName.monitor.id, "", undefined, 1);
      assert.match(named!.error, /localhost resolves to .*, a private or loopback address/);
      await ok.close();
    });

    test("a deferral restarts the retry window, and RedeliverEvent resets it", async () => {
      const down = await receiver((_n, res) => res.writeHead(500).end());
      try {
        const { monitor: m } = await monitorFor(down.url, "window");
        const t0 = Date.now() + 3600_000;
        const [event] = await store.append(
          [{ monitorId: m.id, postId: "reddit:w1", payload: JSON.stringify({ id: "w1" }), channels: 1 }],
          t0,
        );
        const head = async (at: number) => (await store.due(at, 1000)).find((d) => d.event.monitorId === m.id);
        assert.equal((await head(t0))!.windowStart, t0, "a new delivery counts from the event's creation");

        await store.defer(event!.id, 0, t0 + 60_000);
        assert.equal(await head(t0 + 59_999), undefined, "held until the deferral's time");
        assert.equal((await head(t0 + 60_000))!.windowStart, t0 + 60_000);
        assert.deepEqual(await store.attempts(m.id, "", undefined, 10), [], "a deferral without a note is no attempt");

        // A 10 s window counted from the deferral, not from the event: the failure is retried.
        let now = t0 + 60_000;
        const runner = opened.runner({
          allowPrivate: true,
          clock: () => now,
          random: () => 0,
          retry: { baseDelayMs: 1_000, maxDelayMs: 1_000, retryWindowMs: 10_000 },
        });
        await runner.tick();
        const [failed] = await store.attempts(m.id, "", undefined, 10);
        assert.equal(failed!.status, "failed", "inside the window that the deferral restarted");
        assert.equal((await store.byId(m.id))!.paused, false);

        // Past the window: dead-lettered, paused; a redelivery starts a fresh window.
        now = t0 + 75_000;
        await runner.tick();
        assert.equal((await store.attempts(m.id, "dead_lettered", undefined, 10)).length, 1);
        assert.equal((await store.byId(m.id))!.paused, true);
        await runner.stop();
        assert.equal(await store.redeliver(m.id, event!.id, t0 + 90_000), true);
        const m2 = (await store.byId(m.id))!;
        await store.update({ ...m2, paused: false, pausedReason: "" });
        assert.equal((await head(t0 + 90_000))!.windowStart, t0 + 90_000);
      } finally {
        await down.close();
      }
    });
  });
