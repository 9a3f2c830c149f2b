import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
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

  it("reads WEAVIATE_FLAT_SEARCH_CUTOFF as a whole number, unset leaving the adapter's default", () => {
    assert.equal(loadConfig({}).weaviateFlatSearchCutoff, undefined);
    assert.equal(loadConfig({ WEAVIATE_FLAT_SEARCH_CUTOFF: "0" }).weaviateFlatSearchCutoff, 0);
    assert.equal(loadConfig({ WEAVIATE_FLAT_SEARCH_CUTOFF: "40000" }).weaviateFlatSearchCutoff, 40_000);
    assert.throws(
      () => loadConfig({ WEAVIATE_FLAT_SEARCH_CUTOFF: "2e4" }),
      (e: unknown) => e instanceof ConfigError && /WEAVIATE_FLAT_SEARCH_CUTOFF must be a whole number/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ WEAVIATE_FLAT_SEARCH_CUTOFF: "-1" }),
      (e: unknown) => e instanceof ConfigError && /WEAVIATE_FLAT_SEARCH_CUTOFF must be between 0/.test(e.message),
    );
  });
});
