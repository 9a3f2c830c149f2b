/**
 * The TrendStore contract against the embedded LanceDB index in a temporary directory, written
 * through LanceDbIndex.upsert; plus a timing of the aggregate scan.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LanceDbIndex } from "../../src/index/lancedb-index.js";
import { LanceDbTrendStore } from "../../src/index/lancedb-trends.js";
import { registerTrendStoreContract } from "./trend-store-contract.js";

registerTrendStoreContract("lancedb", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-lance-trends-"));
  const dir = LanceDbIndex.dirFor(root);
  return {
    index: new LanceDbIndex({ dir }),
    store: new LanceDbTrendStore({ dir }),
    reader: new LanceDbTrendStore({ dir }),
    emptyStore: new LanceDbTrendStore({ dir: LanceDbIndex.dirFor(path.join(root, "nothing")) }),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
});
