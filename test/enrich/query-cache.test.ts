/**
 * The LRU query-embedding cache, in front of the OpenAI-compatible embedder talking to a real
 * local server, so every miss is a request the server counts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { connectOpenAiEmbedder } from "../../src/enrich/openai-embedder.js";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { EmbeddingsServer } from "./embeddings-server.js";

const server = new EmbeddingsServer();
let url = "";
before(async () => {
  url = await server.start();
});
after(() => server.stop());

test("query cache: repeats are served from memory, least recently used is evicted", async () => {
  const cache = cachedEmbedder(await connectOpenAiEmbedder({ url, model: "m" }), 2);
  server.reset();
  const [a1] = await cache.embed(["a"]);
  await cache.embed(["b"]);
  const [a2] = await cache.embed(["a"]); // hit; "a" becomes most recent
  assert.equal(a2, a1);
  await cache.embed(["c"]); // evicts "b"
  await cache.embed(["a"]); // still cached
  await cache.embed(["b"]); // miss again
  assert.deepEqual(
    server.requests.map((r) => r.input),
    [["a"], ["b"], ["c"], ["b"]],
  );
  assert.equal(cache.size, 2);
  assert.equal(cache.hits, 2);
  assert.equal(cache.misses, 4);
  const mixed = await cache.embed(["b", "d", "d"]);
  assert.deepEqual(server.requests.at(-1)!.input, ["d"], "only the miss is fetched, once");
  assert.equal(mixed[1], mixed[2]);
  assert.equal(cache.model, "openai:m");
  assert.throws(() => cachedEmbedder(cache, 0), /positive integer/);
});
