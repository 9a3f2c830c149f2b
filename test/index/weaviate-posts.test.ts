/** The posts contract (get, scan) against a real Weaviate server, in a freshly named collection. */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import weaviate from "weaviate-client";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { registerPostsContract } from "./posts-contract.js";

const skip = weaviateSkipReason();
const serverReady = skip ? undefined : startWeaviate();
after(async () => {
  await (await serverReady?.catch(() => undefined))?.stop();
});

registerPostsContract(
  "weaviate",
  async () => {
    const server = await serverReady!;
    const collection = `ThreadsightPosts${randomBytes(4).toString("hex")}`;
    return {
      create: () =>
        new WeaviateIndex({
          httpUrl: server.httpUrl,
          grpcUrl: server.grpcUrl,
          collection,
          replicationFactor: 1,
          shards: 1,
          consistency: "QUORUM",
          fusion: "relativeScore",
        }),
      dispose: async () => {
        const client = await weaviate.connectToCustom({
          httpHost: "127.0.0.1",
          httpPort: server.httpPort,
          grpcHost: "127.0.0.1",
          grpcPort: server.grpcPort,
        });
        try {
          await client.collections.delete(collection);
        } finally {
          await client.close();
        }
      },
    };
  },
  skip ? { skip } : {},
);
