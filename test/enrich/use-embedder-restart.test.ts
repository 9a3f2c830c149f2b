/**
 * Closing the bundled embedder and starting another in the same process (the CLI's serve path
 * after a failed start, tests, the benchmark). Its own file, so no other embedder's workers
 * keep the native ONNX Runtime addon loaded while it runs: node:test runs each file in its own
 * process.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";

test("a new embedder starts after every worker of the previous one has exited", async () => {
  for (let round = 0; round < 3; round += 1) {
    const embedder = await startUseEmbedder(1);
    try {
      const [v] = await embedder.embed([`round ${round}`]);
      assert.equal(v!.length, 512);
    } finally {
      await embedder.close();
    }
  }
});
