/**
 * The contract every counter store passes (memory, SQLite, PostgreSQL, Redis): exact admission
 * under concurrency, refunds, peeks that do not count, per-call windows, and, where the store
 * allows it, sharing between two store instances and persistence across a re-open.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { Counter, CounterStore } from "../../src/limits/counter.js";

/** How a suite obtains stores of one kind. */
export interface CounterStoreFactory {
  /** A store on the shared backend; the suite closes it. */
  open(): Promise<CounterStore>;
  /** Whether two open() stores share counters (false for process memory). */
  shared: boolean;
  /** Whether counters survive closing every store and opening a new one. */
  persistent: boolean;
}

/** Fires `n` consumes at once; counts how many were admitted and checks every refusal's type. */
export async function burst(
  counters: Counter[],
  key: string,
  n: number,
): Promise<{ admitted: number; refused: number }> {
  const calls = Array.from({ length: n }, (_, i) => counters[i % counters.length]!.consume(key));
  const settled = await Promise.allSettled(calls);
  let admitted = 0;
  let refused = 0;
  for (const s of settled) {
    if (s.status === "fulfilled") admitted++;
    else if (s.reason instanceof RateLimiterRes) refused++;
    else throw s.reason;
  }
  return { admitted, refused };
}

/** Registers the contract tests for one store kind. */
export function counterStoreContract(factory: CounterStoreFactory): void {
  const key = () => `k-${randomUUID()}`;
  const withStore = (body: (store: CounterStore) => Promise<void>) => async () => {
    const store = await factory.open();
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };

  it(
    "admits exactly the limit out of 200 concurrent calls",
    withStore(async (store) => {
      const c = store.counter(50, 60);
      const k = key();
      assert.deepEqual(await burst([c], k, 200), { admitted: 50, refused: 150 });
      const state = await c.peek(k);
      assert.equal(state?.consumedPoints, 200, "refused calls were counted by the store (the enforcer refunds them)");
    }),
  );

  it(
    "a refund gives one call back",
    withStore(async (store) => {
      const c = store.counter(3, 60);
      const k = key();
      for (let i = 0; i < 3; i++) await c.consume(k);
      await assert.rejects(c.consume(k), (e) => e instanceof RateLimiterRes && e.remainingPoints === 0);
      await c.refund(k);
      await c.refund(k);
      const res = await c.consume(k);
      assert.equal(res.consumedPoints, 3);
    }),
  );

  it(
    "peek reads without counting and is null for an unused key",
    withStore(async (store) => {
      const c = store.counter(5, 60);
      const k = key();
      assert.equal(await c.peek(k), null);
      await c.consume(k);
      const p1 = await c.peek(k);
      const p2 = await c.peek(k);
      assert.equal(p1?.consumedPoints, 1);
      assert.equal(p2?.consumedPoints, 1);
      assert.ok(p2 !== null && p2.msBeforeNext > 0 && p2.msBeforeNext <= 60_000);
    }),
  );

  it(
    "a per-call window sets when the window ends",
    withStore(async (store) => {
      const c = store.counter(5, 31 * 86_400);
      const k = key();
      const res = await c.consume(k, { windowSeconds: 3_600 });
      assert.ok(res.msBeforeNext > 3_590_000 && res.msBeforeNext <= 3_600_000, `msBeforeNext ${res.msBeforeNext}`);
    }),
  );

  it(
    "counters with different limits on one key see the same count",
    withStore(async (store) => {
      const k = key();
      await store.counter(10, 60).consume(k);
      await store.counter(10, 60).consume(k);
      const res = await store.counter(10, 60).consume(k);
      assert.equal(res.consumedPoints, 3, "the cache hands out one counter per (points, duration)");
    }),
  );

  it(
    "counters with different limits on one key count in one window, each refusing at its own limit",
    withStore(async (store) => {
      const k = key();
      await store.counter(10, 60).consume(k);
      await store.counter(10, 60).consume(k);
      const low = await store.counter(3, 60).consume(k);
      assert.equal(low.consumedPoints, 3);
      assert.equal(low.remainingPoints, 0);
      const refused = await store
        .counter(3, 60)
        .consume(k)
        .then(
          () => undefined,
          (r: unknown) => r,
        );
      assert.ok(refused instanceof RateLimiterRes, "over the lower limit");
      const high = await store.counter(10, 60).consume(k);
      assert.equal(high.consumedPoints, 5, "the refusal kept its point, as rate-limiter-flexible does");
      assert.equal(high.remainingPoints, 5);
    }),
  );

  if (factory.shared) {
    it("two store instances share one budget: 200 calls split across them admit exactly 50", async () => {
      const a = await factory.open();
      const b = await factory.open();
      try {
        const k = key();
        assert.deepEqual(await burst([a.counter(50, 60), b.counter(50, 60)], k, 200), { admitted: 50, refused: 150 });
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  if (factory.persistent) {
    it("a re-opened store continues from the persisted count", async () => {
      const k = key();
      const first = await factory.open();
      for (let i = 0; i < 25; i++) await first.counter(50, 3_600).consume(k);
      await first.close();
      const second = await factory.open();
      try {
        assert.deepEqual(await burst([second.counter(50, 3_600)], k, 40), { admitted: 25, refused: 15 });
      } finally {
        await second.close();
      }
    });
  }
}
