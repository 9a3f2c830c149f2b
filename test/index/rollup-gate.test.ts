/**
 * RollupGate's rule over counts it is handed: rollups that cover the posts answer at once, a
 * shortfall no write moves is backfilled once for every waiting caller, and one that moves (a
 * writer mid-batch) is read as it stands.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RollupGate } from "../../src/index/rollup-gate.js";
import type { RollupCell } from "../../src/topics/rollup.js";
import { emptyCell, TOTAL_DAY, TOTAL_TOPIC } from "../../src/topics/rollup.js";

function total(count: number): RollupCell {
  return { ...emptyCell(TOTAL_TOPIC, TOTAL_DAY), count, maxCreated: 1000 + count };
}

/** A gate over mutable counts; `rebuild` levels the rollups with the posts. */
function gateOver(state: { total: RollupCell | undefined; posts: number }) {
  let rebuilds = 0;
  const gate = new RollupGate({
    total: async () => state.total,
    posts: async () => state.posts,
    rebuild: async () => {
      rebuilds++;
      await new Promise((r) => setTimeout(r, 20));
      state.total = total(state.posts);
    },
    settleMs: 50,
  });
  return { gate, rebuilds: () => rebuilds };
}

describe("RollupGate", () => {
  it("answers from rollups that count every post without waiting or rebuilding", async () => {
    const { gate, rebuilds } = gateOver({ total: total(5), posts: 5 });
    const started = Date.now();
    assert.equal((await gate.ready())?.count, 5);
    assert.ok(Date.now() - started < 50, "no settle wait");
    assert.equal(rebuilds(), 0);
  });

  it("answers nothing for an empty index with no rollups", async () => {
    const { gate, rebuilds } = gateOver({ total: undefined, posts: 0 });
    assert.equal(await gate.ready(), undefined);
    assert.equal(rebuilds(), 0);
  });

  it("backfills missing rollups once, however many callers wait", async () => {
    const { gate, rebuilds } = gateOver({ total: undefined, posts: 7 });
    assert.equal(await gate.fresh(), undefined);
    const answers = await Promise.all([gate.ready(), gate.ready(), gate.ready()]);
    assert.deepEqual(
      answers.map((t) => t?.count),
      [7, 7, 7],
    );
    assert.equal(rebuilds(), 1);
    assert.equal((await gate.fresh())?.count, 7);
  });

  it("backfills rollups left short of the posts when nothing moves them", async () => {
    const { gate, rebuilds } = gateOver({ total: total(3), posts: 4 });
    assert.equal((await gate.ready())?.count, 4);
    assert.equal(rebuilds(), 1);
  });

  it("reads a shortfall a writer is moving as it stands, without rebuilding", async () => {
    const state = { total: total(3) as RollupCell | undefined, posts: 4 };
    const { gate, rebuilds } = gateOver(state);
    // A writer lands its rollup delta during the settle wait, then writes its next batch.
    setTimeout(() => {
      state.total = total(4);
      state.posts = 6;
    }, 20);
    assert.equal((await gate.ready())?.count, 4);
    assert.equal(rebuilds(), 0);
  });

  it("gives up on an aborted caller without failing the others", async () => {
    const { gate, rebuilds } = gateOver({ total: undefined, posts: 2 });
    const ac = new AbortController();
    const cut = gate.ready(ac.signal);
    const other = gate.ready();
    ac.abort();
    await assert.rejects(cut, { name: "AbortError" });
    assert.equal((await other)?.count, 2);
    assert.equal(rebuilds(), 1);
  });
});
