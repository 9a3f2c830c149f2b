/** The posts contract (get, scan) against the embedded LanceDB index in a fresh temp directory. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { registerPostsContract } from "./posts-contract.js";

registerPostsContract("lancedb", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-lancedb-posts-"));
  return {
    create: () => new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir) }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
