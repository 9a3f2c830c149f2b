/**
 * The TrendStore contract against a real Weaviate server (test/harness/weaviate.ts), in a freshly
 * named collection written through WeaviateIndex.upsert. Skipped locally without the binary;
 * fails in CI (test/harness/backend-policy.ts).
 */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import { WeaviateTrendStore } from "../../src/index/weaviate/trends.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { registerTrendStoreContract } from "./trend-store-contract.js";

const skip = weaviateSkipReason();
const serverReady = skip ? undefined : startWeaviate();
after(async () => {
  await (await serverReady?.catch(() => undefined))?.stop();
});

registerTrendStoreContract(
  "weaviate",
  async () => {
    const server = await serverReady!;
    const collection = `Trends_${randomBytes(4).toString("hex")}`;
    const conn = { httpUrl: server.httpUrl, grpcUrl: server.grpcUrl, consistency: "QUORUM" as const };
    return {
      index: new WeaviateIndex({ ...conn, collection, replicationFactor: 1, shards: 1, fusion: "relativeScore" }),
      store: new WeaviateTrendStore({ ...conn, collection }),
      reader: new WeaviateTrendStore({ ...conn, collection }),
      emptyStore: new WeaviateTrendStore({ ...conn, collection: `${collection}_absent` }),
      // Ranks every topic through the sorted fetches and their widening.
      alternate: new WeaviateTrendStore({ ...conn, collection, unsortedFetch: 2 }),
      cleanup: async () => {},
    };
  },
  skip,
);
