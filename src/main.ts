/**
 * Wires the service from a Config: stores, limits, index, embedder, summarizer, health, server.
 * `createService` builds everything without listening (tests use it with real ports);
 * `runService` listens and owns the process signals. Nothing below this file reads env.
 */
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { createKeyService } from "./accounts/key-service.js";
import type { KeyService } from "./accounts/key-service.js";
import { openAccountsStore } from "./accounts/open-store.js";
import { retryingUsage } from "./accounts/usage-retry.js";
import type { AccountsStore } from "./accounts/store.js";
import { leadService } from "./api/leads.js";
import { searchService } from "./api/search.js";
import { trendService } from "./api/trends.js";
import { usageService } from "./api/usage.js";
import type { Config } from "./config.js";
import { LeadsCore } from "./core/leads.js";
import { SearchCore } from "./core/search.js";
import { TrendsCore } from "./core/trends.js";
import { createExtractiveSummarizer } from "./core/summary/extractive.js";
import { createLlmSummarizer } from "./core/summary/llm.js";
import type { Summarizer } from "./core/summary/summarizer.js";
import { createEmbedder } from "./enrich/create-embedder.js";
import { cachedEmbedder } from "./enrich/query-cache.js";
import { HealthMonitor } from "./grpc/health-monitor.js";
import { ecosystemRoutes } from "./grpc/routes.js";
import { openSearchIndex } from "./index/open-index.js";
import { openTrendStore } from "./index/open-trend-store.js";
import type { SearchIndex } from "./index/search-index.js";
import { createLimitsInterceptor } from "./limits/limits-interceptor.js";
import { openLimits } from "./limits/open-limits.js";
import type { Limits } from "./limits/open-limits.js";
import { createRpcMetrics } from "./observability/metrics.js";
import { createSmtpMailer } from "./portal/mailer.js";
import { createPortalService } from "./portal/portal-accounts.js";
import { reportTopicModel, TopicModelFile, topicModelPath } from "./topics/model-file.js";
import { API_SERVICES, buildServer } from "./server.js";

/** Query embeddings kept in the LRU cache. */
const QUERY_CACHE_SIZE = 10_000;

/** A wired, not yet listening service. */
export interface Service {
  app: FastifyInstance;
  keys: KeyService;
  accounts: AccountsStore;
  index: SearchIndex;
  limits: Limits;
  health: HealthMonitor;
  /** Stops accepting calls, drains in-flight ones, closes every store. Idempotent. */
  close(): Promise<void>;
}

function summarizerFor(config: Config, logger: Logger): Summarizer {
  if (config.summaryLlmUrl === undefined) return createExtractiveSummarizer();
  return createLlmSummarizer({
    baseUrl: config.summaryLlmUrl,
    model: config.summaryLlmModel,
    apiKey: config.summaryLlmApiKey,
    timeoutMs: config.summaryLlmTimeoutMs,
    onFallback: (reason) => logger.warn({ reason }, "ai_summary fell back to extractive"),
  });
}

/** Builds the whole service from configuration. Fails fast with a clear error on bad wiring. */
export async function createService(config: Config, logger: Logger): Promise<Service> {
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const accounts = await openAccountsStore(config);
    closers.push(() => accounts.close());
    const keys = createKeyService({ store: accounts, rotationGraceSeconds: config.keyRotationGraceSeconds });
    // Usage rows missed during an accounts-store outage are written when it returns.
    const usage = retryingUsage(accounts, (e) => {
      if (e.kind === "flushed") logger.info({ rows: e.rows }, "usage recorded during the accounts-store outage written");
      else if (e.kind === "dropped") logger.error({ err: e.err, keyId: e.keyId, operation: e.operation, n: e.n }, "usage increment dropped");
      else logger.warn({ err: String(e.err), keyId: e.keyId, operation: e.operation }, "accounts store unreachable; usage increment queued");
    });
    closers.push(() => usage.close());
    const limits = await openLimits(config, { onRedisError: (err) => logger.warn({ err: err.message }, "redis error; insurance limits answer meanwhile") });
    closers.push(() => limits.close());

    const embedder = cachedEmbedder(await createEmbedder(config), QUERY_CACHE_SIZE);
    closers.push(() => embedder.close());
    // Serving: an ingest into the embedded index meanwhile keeps its indexes current for us.
    const index = await openSearchIndex(config, { serving: true });
    closers.push(() => index.close());
    const info = await index.open(embedder.model, embedder.dimensions);
    logger.info({ backend: index.backend, posts: info.count, model: info.embeddingModel }, "search index open");

    const trendStore = await openTrendStore(config);
    closers.push(() => trendStore.close());
    const topicModel = new TopicModelFile(topicModelPath(config.dataDir));
    await reportTopicModel(topicModel, logger);
    const trends = new TrendsCore({ store: trendStore, topics: () => topicModel.current() });

    const search = new SearchCore({ index, embedder, summarizer: summarizerFor(config, logger), hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha });
    const health = new HealthMonitor({ onCheckFailure: (service, reason) => logger.warn({ service, reason: String(reason) }, "health check failed") });
    health.register("threadsight.index", (signal) => index.ping(signal));
    health.register("threadsight.accounts", async () => (await accounts.ping(), true));
    if (limits.redis !== undefined) {
      const redis = limits.redis;
      health.register("threadsight.limits", async () => redis.status === "ready");
    }
    await health.start();
    closers.push(() => health.stop());

    const app = await buildServer({
      config,
      logger,
      metrics: createRpcMetrics(),
      authenticator: keys,
      authGuard: limits.authFailures,
      afterAuth: [
        createLimitsInterceptor({
          enforcer: limits.enforcer,
          usage,
          onUsageError: (err, keyId, operation) => logger.error({ err, keyId, operation }, "recording usage failed"),
          onReleaseError: (err, keyId, operation) => logger.warn({ err, keyId, operation }, "giving back the quota point of a failed call failed"),
        }),
      ],
      implementations: {
        search: searchService(search),
        trends: trendService(trends),
        leads: leadService(new LeadsCore({ index, embedder, hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha })),
        usage: usageService({ enforcer: limits.enforcer, store: accounts }),
      },
      ecosystem: ecosystemRoutes(API_SERVICES, health),
      readiness: async () => Object.fromEntries([...health.snapshot()].filter(([name]) => name !== "").map(([name, s]) => [name, s === "SERVING"])),
      ...(config.portalEnabled
        ? {
            portal: createPortalService({
              store: accounts,
              keys,
              enforcer: limits.enforcer,
              catalog: limits.catalog,
              sessionTtlSeconds: config.portalSessionTtlSeconds,
              publicUrl: config.portalPublicUrl,
              ...(config.smtpUrl !== undefined ? { mailer: createSmtpMailer(config.smtpUrl, config.smtpFrom) } : {}),
              // The error names the server and the refusal, never the link (it is a credential).
              onMailError: (err) => logger.error({ reason: (err as Error).message }, "portal mail not sent"),
            }),
          }
        : {}),
    });
    let closing: Promise<void> | undefined;
    return {
      app,
      keys,
      accounts,
      index,
      limits,
      health,
      close() {
        closing ??= (async () => {
          // NOT_SERVING first, so load balancers stop sending and health watchers end their
          // streams; then the port closes and in-flight calls drain.
          health.shutdown();
          await app.close();
          for (const close of closers.reverse()) await close();
        })();
        return closing;
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw err;
  }
}

/** Starts the service, listens, and shuts down gracefully on SIGTERM/SIGINT. */
export async function runService(config: Config, logger: Logger): Promise<void> {
  const service = await createService(config, logger);
  await service.app.listen({ port: config.port, host: config.host });
  const address = service.app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  logger.info({ host: config.host, port, tls: config.tlsCertFile !== undefined }, "threadsight listening");
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal }, "shutting down: draining in-flight calls");
      service.close().then(resolve, (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        resolve();
      });
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  logger.info("stopped");
}
