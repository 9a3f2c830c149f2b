/**
 * The OpenAI-compatible embedder against a real local HTTP server that speaks /v1/embeddings:
 * dimension discovery, batching, retries on 429/5xx, no retry on 4xx, timeouts and abort.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { connectOpenAiEmbedder, EmbeddingsHttpError, OpenAiEmbedder } from "../../src/enrich/openai-embedder.js";
import { EmbeddingsServer, vectorOf } from "./embeddings-server.js";

const server = new EmbeddingsServer();
let url = "";
before(async () => {
  url = await server.start();
});
after(() => server.stop());
beforeEach(() => server.reset());
const DIMS = EmbeddingsServer.DIMS;

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

test("discovers the dimension, records openai:<model>, sends the key, keeps order, normalises", async () => {
  const embedder = await connectOpenAiEmbedder({
    url: `${url}/`,
    model: "nomic-embed-text",
    apiKey: "sk-test",
    batchSize: 2,
  });
  assert.equal(embedder.model, "openai:nomic-embed-text");
  assert.equal(embedder.dimensions, DIMS);
  const vectors = await embedder.embed(["alpha", "beta", "gamma"]);
  assert.deepEqual(
    server.requests.map((r) => r.input),
    [["dimension probe"], ["alpha", "beta"], ["gamma"]],
  );
  assert.equal(server.requests[0]!.auth, "Bearer sk-test");
  assert.equal(server.requests[0]!.model, "nomic-embed-text");
  vectors.forEach((v, i) => {
    assert.ok(Math.abs(norm(v) - 1) < 1e-6);
    const raw = vectorOf(["alpha", "beta", "gamma"][i]!);
    const rawNorm = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(v[0]! - raw[0]! / rawNorm) < 1e-6, `vector ${i} belongs to its text`);
  });
});

test("429 then success is retried (Retry-After honoured); so is a 500", async () => {
  const embedder = new OpenAiEmbedder({ url, model: "m", backoffMs: 5 });
  server.script = ["429", "500", "ok"];
  const [v] = await embedder.embed(["retry me"]);
  assert.equal(v!.length, DIMS);
  assert.equal(server.requests.length, 3);
});

test("retries give up with the last status; a 400 is not retried and carries the server's message", async () => {
  const embedder = new OpenAiEmbedder({ url, model: "m", retries: 2, backoffMs: 1 });
  server.script = ["500", "500", "500", "500"];
  await assert.rejects(
    embedder.embed(["x"]),
    (err: Error) =>
      err instanceof EmbeddingsHttpError && err.status === 500 && /gave up after 3 attempts/.test(err.message),
  );
  assert.equal(server.requests.length, 3);
  server.requests = [];
  server.script = ["400"];
  await assert.rejects(
    embedder.embed(["x"]),
    (err: Error) => err instanceof EmbeddingsHttpError && err.status === 400 && /input too long/.test(err.message),
  );
  assert.equal(server.requests.length, 1);
});

test("a request that never answers times out, then the retry succeeds; abort stops at once", async () => {
  const embedder = new OpenAiEmbedder({ url, model: "m", timeoutMs: 200, backoffMs: 1 });
  server.script = ["hang", "ok"];
  const started = Date.now();
  const [v] = await embedder.embed(["slow"]);
  assert.equal(v!.length, DIMS);
  assert.ok(Date.now() - started >= 190);
  const noRetry = new OpenAiEmbedder({ url, model: "m", timeoutMs: 150, retries: 0 });
  server.script = ["hang"];
  await assert.rejects(noRetry.embed(["slow"]), /timed out after 150 ms/);
  const controller = new AbortController();
  server.script = ["hang"];
  const pending = embedder.embed(["slow"], controller.signal);
  setTimeout(() => controller.abort(new Error("caller gave up")), 50);
  await assert.rejects(pending, /caller gave up/);
});

test("an unreachable endpoint fails clearly", async () => {
  const embedder = new OpenAiEmbedder({ url: "http://127.0.0.1:1", model: "m", retries: 1, backoffMs: 1 });
  await assert.rejects(
    embedder.embed(["x"]),
    /embeddings request to http:\/\/127\.0\.0\.1:1\/v1\/embeddings failed.*gave up after 2 attempts/,
  );
});
