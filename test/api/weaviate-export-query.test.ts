/** ExportPosts with a query on a real Weaviate server, in a freshly named collection (export-query-suite.ts). */
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { registerExportQuerySuite } from "./export-query-suite.js";

const skip = weaviateSkipReason();

registerExportQuerySuite(
  "weaviate",
  async () => {
    const server = await startWeaviate();
    return {
      env: {
        WEAVIATE_URL: server.httpUrl,
        WEAVIATE_GRPC_URL: server.grpcUrl,
        WEAVIATE_COLLECTION: `ExportQuery${Date.now()}`,
      },
      stop: () => server.stop(),
    };
  },
  skip ? { skip } : {},
);
