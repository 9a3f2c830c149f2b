/**
 * The bundled Universal Sentence Encoder lite in worker threads: real model, real vectors.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { startUseEmbedder, USE_CHUNK, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";

let embedder: UseEmbedder;
before(async () => {
  embedder = await startUseEmbedder(2);
});
after(async () => {
  await embedder.close();
});

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

test("512-d unit vectors under the recorded model id", async () => {
  assert.equal(embedder.model, USE_MODEL_ID);
  assert.equal(embedder.dimensions, 512);
  const [v] = await embedder.embed(["How should I price a SaaS product for small businesses?"]);
  assert.equal(v!.length, 512);
  assert.ok(Math.abs(Math.sqrt(dot(v!, v!)) - 1) < 1e-5);
  assert.ok(v!.some((x) => x !== 0));
});

test("similar sentences are closer than unrelated ones", async () => {
  const [a, b, c, d] = await embedder.embed([
    "How do I find my first customers?",
    "Ways to get initial clients for a new startup",
    "My cat likes to sleep on the warm keyboard",
    "Best laptop for programming under 1000 dollars",
  ]);
  assert.ok(dot(a!, b!) > dot(a!, c!) + 0.2, `similar ${dot(a!, b!)} vs unrelated ${dot(a!, c!)}`);
  assert.ok(dot(a!, b!) > dot(a!, d!), `similar ${dot(a!, b!)} vs unrelated ${dot(a!, d!)}`);
});

test("a batch across several chunks and lengths returns each text's own vector, in order", async () => {
  const texts = Array.from(
    { length: USE_CHUNK * 2 + 5 },
    (_, i) =>
      `${"background detail ".repeat(i % 7)}question number ${i} about ${i % 2 === 0 ? "hiring engineers" : "filing taxes"}`,
  );
  const batch = await embedder.embed(texts);
  assert.equal(batch.length, texts.length);
  for (const i of [0, 3, 17, 36]) {
    const [alone] = await embedder.embed([texts[i]!]);
    assert.ok(dot(batch[i]!, alone!) > 0.999, `text ${i}: ${dot(batch[i]!, alone!)}`);
  }
  assert.deepEqual(await embedder.embed([]), []);
});

test("an aborted call rejects; a closed embedder refuses work", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(embedder.embed(["x"], controller.signal), /stop/);
  const other = await startUseEmbedder(1);
  await other.close();
  await assert.rejects(other.embed(["x"]), /closed/);
});
