/**
 * A real server process for the multi-process limits test: buildServer (Fastify, every protocol
 * on one port, REST gateway) with the real auth and limits wiring, the shared accounts store and
 * Redis, and trivial SearchService handlers so no index or model is loaded. Prints
 * `{"port":N}` on stdout once listening; exits on SIGTERM.
 *
 * Env: THREADSIGHT_DATA_DIR (accounts SQLite), REDIS_URL, PLANS_FILE (optional).
 */
import { create } from "@bufbuild/protobuf";
import pino from "pino";
import { SemanticSearchResponseSchema, VectorSearchResponseSchema } from "../../gen/threadsight/v1/search_pb.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import { usageService } from "../../src/api/usage.js";
import { loadConfig } from "../../src/config.js";
import { createLimitsInterceptor } from "../../src/limits/limits-interceptor.js";
import { openLimits } from "../../src/limits/open-limits.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";

const config = loadConfig();
const accounts = await openAccountsStore(config);
const keys = createKeyService({ store: accounts, cacheTtlMs: 0 });
const limits = await openLimits(config);
const app = await buildServer({
  config,
  logger: pino({ level: "silent" }),
  metrics: createRpcMetrics(),
  authenticator: keys,
  authGuard: limits.authFailures,
  afterAuth: [createLimitsInterceptor({ enforcer: limits.enforcer, usage: accounts })],
  implementations: {
    search: {
      semanticSearch: async (req) => create(SemanticSearchResponseSchema, { query: req.query }),
      vectorSearch: async (req) => create(VectorSearchResponseSchema, { query: req.query }),
    },
    usage: usageService({ enforcer: limits.enforcer, store: accounts }),
  },
});
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
process.stdout.write(
  JSON.stringify({ port: typeof address === "object" && address !== null ? address.port : 0 }) + "\n",
);
process.once("SIGTERM", () => {
  void (async () => {
    await app.close();
    await limits.close();
    await accounts.close();
    process.exit(0);
  })();
});
