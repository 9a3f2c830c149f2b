import assert from "node:assert/strict";
import { test } from "node:test";
import { IndexUnavailableError } from "../../src/index/search-index.js";
import { watchLiveness } from "../../src/index/weaviate/liveness-watch.js";

const never = new Promise<string>(() => undefined);
const later = (ms: number, v: string) => new Promise<string>((r) => setTimeout(() => r(v), ms));

test("a fast call is not probed", async () => {
  let probes = 0;
  assert.equal(await watchLiveness("e", later(5, "ok"), async () => (probes++, true), 50, 50), "ok");
  assert.equal(probes, 0);
});

test("a slow call to a live engine waits for its result", async () => {
  let probes = 0;
  assert.equal(await watchLiveness("e", later(200, "ok"), async () => (probes++, true), 20, 40), "ok");
  assert.ok(probes >= 2);
});

test("a dead engine rejects the call with IndexUnavailableError soon after the watch starts", async () => {
  const started = Date.now();
  await assert.rejects(
    watchLiveness("weaviate", never, async () => false, 20, 40),
    (e: unknown) => e instanceof IndexUnavailableError && /weaviate is not reachable/.test(e.message),
  );
  assert.ok(Date.now() - started < 500);
});

test("a probe that throws or hangs counts as down", async () => {
  await assert.rejects(
    watchLiveness(
      "e",
      never,
      async () => {
        throw new Error("ECONNREFUSED");
      },
      10,
      30,
    ),
    IndexUnavailableError,
  );
  await assert.rejects(
    watchLiveness("e", never, () => new Promise<boolean>(() => undefined), 10, 30),
    IndexUnavailableError,
  );
});

test("one unanswered probe (a busy server or a stalled event loop) does not fail a call that then finishes", async () => {
  let probes = 0;
  // The first probe never answers (times out after 40 ms); later ones answer live; the call ends at 150 ms.
  const isLive = (): Promise<boolean> =>
    ++probes === 1 ? new Promise<boolean>(() => undefined) : Promise.resolve(true);
  assert.equal(await watchLiveness("e", later(150, "ok"), isLive, 10, 40), "ok");
  assert.ok(probes >= 2);
});

test("the call's own error passes through", async () => {
  await assert.rejects(
    watchLiveness("e", Promise.reject(new RangeError("bad")), async () => true, 10, 10),
    RangeError,
  );
});
