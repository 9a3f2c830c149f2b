/**
 * The percolator shares its thread with the encoder workers' dispatch, so a large batch must not
 * hold it in one piece: matching gives the event loop a turn between slices of posts, and a
 * batch's events are appended in slices of EVENTS_PER_APPEND, each its own transaction, with
 * every event stored once, in post order, and none again when the batch is percolated twice.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { MonitorMatcher } from "../../src/monitors/monitor-matcher.js";
import { EVENTS_PER_APPEND, monitorPercolator } from "../../src/monitors/monitor-percolator.js";
import { MonitorsCore } from "../../src/monitors/monitors-core.js";
import { openSqliteMonitorStore } from "../../src/monitors/sqlite-monitor-store.js";
import { forumPost, noEmbedding, storedMonitor } from "./monitor-fixtures.js";

const ALPHAS = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };
const posts = (n: number) =>
  Array.from({ length: n }, (_, i) => forumPost(`p${i}`, { title: `Which crm do you use ${i}`, content: "" }));

test("matching a large batch lets other callbacks run before it ends, with the same matches", async () => {
  const matcher = new MonitorMatcher(
    [storedMonitor("k1", { kind: "keywords", query: "crm" })],
    new Map(),
    4,
    ALPHAS,
    "none",
  );
  const batch = posts(500);
  let ranBefore = false;
  let done = false;
  setImmediate(() => {
    ranBefore = !done;
  });
  const matches = await matcher.match(batch);
  done = true;
  assert.equal(ranBefore, true, "a callback queued before the match ran while it was matching");
  assert.deepEqual(
    matches.map((m) => m.post.id),
    batch.map((p) => p.id),
  );
});

test("a batch's events are appended in slices, once each, in post order", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-percolator-turns-"));
  const store = openSqliteMonitorStore(path.join(dir, "monitors.sqlite"));
  try {
    const core = new MonitorsCore(store);
    const owner = { accountId: "acct_turns", maxActiveMonitors: null, planName: "Test" };
    const made = await core.create(owner, {
      name: "crm",
      kind: "keywords",
      query: "crm",
      minRelevance: 0.5,
      minScore: 50,
      filter: emptyFilter(),
      channels: [{ type: "webhook", url: "http://127.0.0.1:9/hook", email: "", emailMode: "instant" }],
      paused: false,
    });
    const slices: number[] = [];
    const percolate = monitorPercolator({
      store,
      embedder: noEmbedding,
      alphas: ALPHAS,
      onEvents: (events) => slices.push(events.length),
    });
    const n = 2 * EVENTS_PER_APPEND + 500;
    const batch = posts(n);
    await percolate(batch, "ingest");
    assert.deepEqual(slices, [EVENTS_PER_APPEND, EVENTS_PER_APPEND, 500]);
    const stored = await store.eventsAfter(made.monitor.id, 0, 10 * n);
    assert.deepEqual(
      stored.map((e) => e.postId),
      batch.map((p) => p.id),
      "every post's event once, in post order",
    );
    slices.length = 0;
    await percolate(batch, "ingest");
    assert.deepEqual(slices, [0, 0, 0], "a rerun of the batch stores nothing twice");
    assert.equal((await store.eventsAfter(made.monitor.id, 0, 10 * n)).length, n);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
