/**
 * The plan's monitor_deliveries_per_day, enforced by the delivery workers with the quota counter
 * store (rate-limiter-flexible over SQLite) and the real plan catalogs: a Free account of
 * variant-b gets 50 deliveries a UTC day; the 51st waits in the outbox with a "deferred" row
 * naming the limit and when it opens, and goes out, in order, when the next day starts. Failed
 * sends do not use up the day; an unlimited plan is never held; a plan with none holds all. Runs
 * on both monitor stores (the SQLite poller and the PostgreSQL lane queue share the same rules).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { PlanId } from "../../src/accounts/caller.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import type { CounterStore } from "../../src/limits/counter.js";
import { dailyDeliveries, utcDay } from "../../src/limits/daily-deliveries.js";
import { sqliteCounterStore } from "../../src/limits/local-stores.js";
import { QUOTA_PREFIX } from "../../src/limits/open-limits.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import type { IndexedPost } from "../../src/model/post.js";
import type { DeliveryRunner } from "../../src/monitors/delivery-worker.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import type { OpenBackend } from "../harness/monitor-backends.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import { forumPost, noEmbedding } from "./monitor-fixtures.js";

function post(account: string, n: number): IndexedPost {
  return forumPost(`${account}-${n}`, {
    title: `Looking for an invoice tool for ${account}, take ${n}`,
    url: `https://example.com/${account}/${n}`,
  });
}

/** A webhook receiver on loopback answering 500 to its first `failFirst` requests, 200 after. */
async function receiver(failFirst: number) {
  const ids: string[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      requests += 1;
      if (requests <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      ids.push((JSON.parse(raw) as { id: string }).id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    /** Event ids of the accepted requests, in arrival order. */
    ids,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

for (const backend of await monitorBackends())
  describe(`monitor deliveries per day per plan (${backend.name})`, { skip: backend.skip }, () => {
    let dir: string;
    let opened: OpenBackend;
    let store: MonitorStore;
    let accounts: AccountsStore;
    let counters: CounterStore;
    let core: MonitorsCore;
    // Late in a UTC day, so "the next day" is a short step of the clock.
    let now = Date.UTC(2026, 5, 10, 22, 0, 0);
    const clock = () => now;
    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-daily-"));
      opened = await backend.open();
      store = opened.store;
      accounts = await openAccountsStore({ dataDir: dir });
      counters = sqliteCounterStore(dir, QUOTA_PREFIX);
      core = new MonitorsCore(store, clock);
    });
    after(async () => {
      await counters.close();
      await accounts.close();
      await opened.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** An account on `plan` with one webhook monitor that matched `n` posts. */
    async function setup(id: string, plan: PlanId, n: number, url: string): Promise<string> {
      await accounts.createAccount({ id, name: id, plan, createdAt: new Date(now) });
      const { monitor } = await core.create(
        { accountId: id, maxActiveMonitors: null, planName: plan },
        {
          name: "invoices",
          kind: "keywords",
          // Each account's own word, so one test's monitor does not match another's posts.
          query: `invoice AND ${id}`,
          minRelevance: 0.5,
          minScore: 50,
          filter: emptyFilter(),
          channels: [{ type: "webhook", url, email: "", emailMode: "instant" }],
          paused: false,
        },
      );
      const percolate = monitorPercolator({
        store,
        embedder: noEmbedding,
        alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 },
        clock,
      });
      await percolate(
        Array.from({ length: n }, (_, i) => post(id, i + 1)),
        "ingest",
      );
      return monitor.id;
    }

    function worker(catalogFile: string): DeliveryRunner {
      return opened.runner({
        allowPrivate: true,
        clock,
        random: () => 0,
        retry: { baseDelayMs: 1, maxDelayMs: 1, retryWindowMs: 3600_000 },
        allowance: dailyDeliveries({
          catalog: loadPlanCatalog(catalogFile),
          store: counters,
          planOf: async (accountId) => (await accounts.getAccount(accountId))?.plan,
        }),
      });
    }

    /** Runs passes until nothing is due, moving the clock on a little each pass (retry delays). */
    async function drain(w: DeliveryRunner): Promise<void> {
      for (let pass = 0; pass < 1000; pass++) {
        now += 5;
        if ((await w.tick()) === 0) return;
      }
      assert.fail("the outbox never settled");
    }

    test("Free (variant-b): 50 a day, the rest wait for 00:00 UTC and arrive in order", async () => {
      const hook = await receiver(3);
      try {
        const id = await setup("acct_free", "free", 53, hook.url);
        const w = worker("config/plans/variant-b.json");
        await drain(w);
        assert.equal(hook.ids.length, 50, "50 deliveries accepted on the first day");
        assert.equal(hook.requests(), 53, "3 refused sends were retried and did not use up the day");
        const deferred = await store.attempts(id, "deferred", undefined, 10);
        assert.equal(deferred.length, 1, "one deferred row: only the head of the queue is tried");
        const midnight = utcDay(now).end;
        assert.match(
          deferred[0]!.error,
          new RegExp(
            `^the Free plan allows 50 monitor deliveries per UTC day and this account has used them; held until ${new Date(midnight).toISOString()} \\(00:00 UTC\\)`,
          ),
        );
        assert.equal(deferred[0]!.responseCode, 0);
        assert.equal((await store.attempts(id, "dead_lettered", undefined, 10)).length, 0, "nothing is dropped");
        assert.equal((await store.byId(id))!.paused, false);

        now = midnight + 1000;
        await drain(w);
        assert.equal(hook.ids.length, 53, "the held deliveries go out when the next day opens");
        const events = await store.eventsAfter(id, 0, 100);
        assert.deepEqual(
          hook.ids,
          events.map((e) => e.id),
          "every event once, in order",
        );
        assert.equal((await store.attempts(id, "delivered", undefined, 100)).length, 53);
      } finally {
        await hook.close();
      }
    });

    test("Enterprise (null) is unlimited; variant-a Free (0) holds everything with its own reason", async () => {
      const hook = await receiver(0);
      try {
        const ent = await setup("acct_ent", "enterprise", 60, hook.url);
        await drain(worker("config/plans/variant-b.json"));
        assert.equal(hook.ids.length, 60);
        assert.equal((await store.attempts(ent, "deferred", undefined, 10)).length, 0);

        const none = await setup("acct_none", "free", 2, hook.url);
        await drain(worker("config/plans/variant-a.json"));
        assert.equal(hook.ids.length, 60, "no delivery for a plan that includes none");
        const [row] = await store.attempts(none, "deferred", undefined, 10);
        assert.match(row!.error, /^the Free plan includes no monitor deliveries; held until .*Upgrade, then redeliver/);
      } finally {
        await hook.close();
      }
    });
  });
