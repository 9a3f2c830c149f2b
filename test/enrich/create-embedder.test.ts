/** The embedder factory picks the remote endpoint when EMBEDDINGS_URL is set, else USE-lite. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { EmbeddingsServer } from "./embeddings-server.js";

const server = new EmbeddingsServer();
let url = "";
before(async () => {
  url = await server.start();
});
after(() => server.stop());

test("EMBEDDINGS_URL set: OpenAI-compatible, dimension known before the first embed", async () => {
  const embedder = await createEmbedder({
    embeddingsUrl: url,
    embeddingsModel: "bge-small",
    embeddingsApiKey: undefined,
    embedWorkers: 2,
    localEncoder: "use-lite",
    embeddingsModelDir: "",
  });
  assert.equal(embedder.model, "openai:bge-small");
  assert.equal(embedder.dimensions, EmbeddingsServer.DIMS);
  assert.equal(server.requests.length, 1, "one probe request");
  await embedder.close();
});

test("EMBEDDINGS_URL unset: the bundled sentence encoder in EMBED_WORKERS threads", async () => {
  const embedder = await createEmbedder({
    embeddingsUrl: undefined,
    embeddingsModel: "ignored",
    embeddingsApiKey: undefined,
    embedWorkers: 1,
    localEncoder: "use-lite",
    embeddingsModelDir: "",
  });
  try {
    assert.equal(embedder.model, USE_MODEL_ID);
    assert.equal(embedder.dimensions, 512);
  } finally {
    await embedder.close();
  }
});
