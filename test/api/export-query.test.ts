/** ExportPosts with a query on the embedded LanceDB index (export-query-suite.ts). */
import { registerExportQuerySuite } from "./export-query-suite.js";

registerExportQuerySuite("lancedb", async () => ({ env: {}, stop: async () => {} }));
