import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { openSearchIndex } from "../../src/index/open-index.js";

describe("openSearchIndex", () => {
  it("chooses LanceDB without WEAVIATE_URL and Weaviate with it", async () => {
    const embedded = await openSearchIndex(loadConfig({ THREADSIGHT_DATA_DIR: "/tmp/threadsight-unused" }));
    assert.equal(embedded.backend, "lancedb");
    assert.equal(await embedded.ping(), false, "not opened yet");
    const remote = await openSearchIndex(loadConfig({ WEAVIATE_URL: "http://127.0.0.1:1" }));
    assert.equal(remote.backend, "weaviate");
    assert.equal(await remote.ping(), false, "not opened yet");
  });
});
