/**
 * Two `threadsight serve` processes on one real PostgreSQL share the monitors' deliveries through
 * pg-boss. Events are appended to the shared outbox the way an ingest does (the percolator over
 * the PostgreSQL store); a loopback receiver counts what arrives by event id. In the normal path
 * every event arrives exactly once, in order per monitor. Then one instance is SIGKILLed while it
 * holds deliveries open, and the other finishes the work: every event arrives at least once, the
 * interrupted ones again, and each monitor's sequence never goes back.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { IndexedPost } from "../../src/model/post.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import type { MonitorStore } from "../../src/monitors/monitor-store.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { openMonitors } from "../../src/monitors/open-monitors.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { startPostgres } from "../harness/postgres.js";
import { forumPost, noEmbedding } from "./monitor-fixtures.js";

const pg = await startPostgres();
const LANES = 12;

function post(n: number): IndexedPost {
  // Each post names two of the monitors' words, so events of one batch interleave across lanes.
  return forumPost(`p${n}`, {
    title: `word${n % LANES} and word${(n + 5) % LANES}`,
    upvotes: 1,
    comments: 0,
    url: `https://example.com/${n}`,
  });
}

interface Arrival {
  lane: string;
  id: string;
  /** The sender's connection closed before an answer: it died mid-delivery. */
  aborted: boolean;
  answered: boolean;
  respond(): void;
}

/** A receiver that answers at once, or holds every request until released. */
async function receiver() {
  const arrivals: Arrival[] = [];
  let hold = false;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const a: Arrival = {
        lane: req.url ?? "",
        id: (JSON.parse(raw) as { id: string }).id,
        aborted: false,
        answered: false,
        respond: () => {
          if (a.answered || a.aborted) return;
          a.answered = true;
          res.writeHead(200).end("ok");
        },
      };
      res.on("close", () => {
        if (!a.answered) a.aborted = true;
      });
      arrivals.push(a);
      if (!hold) a.respond();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    arrivals,
    hold(on: boolean) {
      hold = on;
      if (!on) for (const a of arrivals) a.respond();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(cond: () => Promise<boolean> | boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("two server instances on one PostgreSQL deliver monitor events", { skip: pg.skip, timeout: 600_000 }, () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  let store: MonitorStore;
  let rx: Awaited<ReturnType<typeof receiver>>;
  const monitorIds: string[] = [];
  let percolate: ReturnType<typeof monitorPercolator>;
  const servers: { child: ChildProcess; exited: Promise<void>; logs: () => string }[] = [];

  async function startServer(name: string) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), `threadsight-mon-${name}-`));
    dirs.push(dataDir);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), "serve"],
      {
        cwd: PACKAGE_ROOT,
        env: {
          ...process.env,
          HOST: "127.0.0.1",
          PORT: "0",
          LOG_LEVEL: "info",
          THREADSIGHT_DATA_DIR: dataDir,
          DATABASE_URL: pg.url!,
          EMBED_WORKERS: "1",
          MONITORS_ALLOW_PRIVATE_WEBHOOKS: "1",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let out = "";
    const ready = new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        out += c.toString("utf8");
        if (out.includes("threadsight listening")) resolve();
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("exit", (code) => reject(new Error(`server ${name} exited with ${code}:\n${out.slice(-3000)}`)));
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    await ready;
    return { child, exited, logs: () => out };
  }

  before(async () => {
    rx = await receiver();
    store = (await openMonitors({ dataDir: os.tmpdir(), databaseUrl: pg.url!, delivers: false })).store;
    const core = new MonitorsCore(store);
    // The account is real and on an unlimited plan, so the servers' daily delivery limit holds nothing back.
    const accounts = await openAccountsStore({ dataDir: os.tmpdir(), databaseUrl: pg.url! });
    await accounts.createAccount({
      id: "acct_instances",
      name: "instances",
      plan: "enterprise",
      createdAt: new Date(),
    });
    await accounts.close();
    const owner = { accountId: "acct_instances", maxActiveMonitors: null, planName: "Test" };
    for (let i = 0; i < LANES; i++) {
      const { monitor } = await core.create(owner, {
        name: `lane ${i}`,
        kind: "keywords",
        query: `word${i}`,
        minRelevance: 0.5,
        minScore: 50,
        filter: emptyFilter(),
        channels: [{ type: "webhook", url: `${rx.url}/m${i}`, email: "", emailMode: "instant" }],
        paused: false,
      });
      monitorIds.push(monitor.id);
    }
    percolate = monitorPercolator({ store, embedder: noEmbedding, alphas: { hybridAlpha: 0.5, shortQueryAlpha: 0.3 } });
    servers.push(...(await Promise.all([startServer("a"), startServer("b")])));
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await store?.close();
    await rx?.close();
    await pg.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** Every stored event id per lane path, in write order. */
  async function written(): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const [i, id] of monitorIds.entries())
      out.set(
        `/m${i}`,
        (await store.eventsAfter(id, 0, 10_000)).map((e) => e.id),
      );
    return out;
  }
  const answeredIds = () => new Set(rx.arrivals.filter((a) => a.answered).map((a) => a.id));

  it("delivers each event exactly once, in order per monitor, with both instances polling", async () => {
    for (let b = 0; b < 4; b++)
      await percolate(
        Array.from({ length: 15 }, (_x, k) => post(b * 15 + k)),
        "ingest",
      );
    const expected = await written();
    const total = [...expected.values()].reduce((n, ids) => n + ids.length, 0);
    assert.equal(total, 120, "each of 60 posts matched two monitors");
    await until(() => answeredIds().size === total, `${total} events at the receiver`);
    await sleep(1_000);
    assert.equal(rx.arrivals.length, total, "no event was sent twice");
    for (const [lane, ids] of expected)
      assert.deepEqual(
        rx.arrivals.filter((a) => a.lane === lane).map((a) => a.id),
        ids,
        `lane ${lane} received its events once each, in write order`,
      );
  });

  it("after one instance is SIGKILLed mid-delivery, the other delivers everything, in order per monitor", async () => {
    const before = rx.arrivals.length;
    rx.hold(true);
    for (let b = 4; b < 8; b++)
      await percolate(
        Array.from({ length: 15 }, (_x, k) => post(b * 15 + k)),
        "ingest",
      );
    // Every lane has its head in flight, spread over both instances' workers.
    await until(
      () => rx.arrivals.slice(before).filter((a) => !a.answered && !a.aborted).length === LANES,
      "a held delivery on every lane",
      60_000,
    );
    const [killed] = servers;
    killed!.child.kill("SIGKILL");
    await killed!.exited;
    await until(() => rx.arrivals.some((a) => a.aborted), "the killed instance's connections to close", 10_000);
    const interrupted = rx.arrivals.filter((a) => a.aborted).map((a) => a.id);
    rx.hold(false);

    const expected = await written();
    const all = [...expected.values()].flat();
    assert.equal(all.length, 240);
    await until(() => all.every((id) => answeredIds().has(id)), "every event delivered by the survivor");
    for (const id of interrupted)
      assert.ok(
        rx.arrivals.some((a) => a.id === id && a.answered),
        `${id}, interrupted by the kill, was delivered again`,
      );
    for (const [lane, ids] of expected) {
      const got = rx.arrivals.filter((a) => a.lane === lane).map((a) => a.id);
      // At least once: an interrupted event may come twice in a row, but a lane never goes back.
      const deduped = got.filter((id, i) => i === 0 || id !== got[i - 1]);
      assert.deepEqual(deduped, ids, `lane ${lane} in write order`);
    }
    assert.ok(
      servers[1]!.child.exitCode === null,
      `the survivor is still running:\n${servers[1]!.logs().slice(-2000)}`,
    );
  });
});
