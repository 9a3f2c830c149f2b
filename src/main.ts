/**
 * Wires the service from a Config: stores, limits, index, embedder, summarizer, health, server.
 * `createService` builds everything without listening (tests use it with real ports);
 * `runService` listens and owns the process signals. Nothing below this file reads env.
 */
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { KeyService } from "./accounts/key-service.js";
import { createKeyService } from "./accounts/key-service.js";
import { openAccountsStore } from "./accounts/open-store.js";
import type { AccountsStore } from "./accounts/store.js";
import { retryingUsage } from "./accounts/usage-retry.js";
import { insightsService } from "./api/insights.js";
import { leadService } from "./api/leads.js";
import { monitorService } from "./api/monitors.js";
import { postService } from "./api/posts.js";
import { searchService } from "./api/search.js";
import { trendService } from "./api/trends.js";
import { usageService } from "./api/usage.js";
import type { Config } from "./config.js";
import { AggregateCore } from "./core/aggregate.js";
import { LeadsCore } from "./core/leads.js";
import { PageTokens } from "./core/page-token.js";
import { PostsCore } from "./core/posts.js";
import { SearchCore } from "./core/search.js";
import { createLlmSummarizer } from "./core/summary/llm.js";
import type { Summarizer } from "./core/summary/summarizer.js";
import { createExtractiveSummarizer } from "./core/summary/themed-summary.js";
import { TrendsCore } from "./core/trends.js";
import { createEmbedder } from "./enrich/create-embedder.js";
import { cachedEmbedder } from "./enrich/query-cache.js";
import { HealthMonitor } from "./grpc/health-monitor.js";
import { ecosystemRoutes } from "./grpc/routes.js";
import { openSearchIndex } from "./index/open-index.js";
import { openTrendStore } from "./index/open-trend-store.js";
import type { SearchIndex } from "./index/search-index.js";
import { createIngestEnricher } from "./ingest/ingest-enricher.js";
import { dailyDeliveries } from "./limits/daily-deliveries.js";
import { createLimitsInterceptor } from "./limits/limits-interceptor.js";
import type { Limits } from "./limits/open-limits.js";
import { openLimits } from "./limits/open-limits.js";
import { MonitorDryRun } from "./monitors/monitor-dry-run.js";
import { monitorPercolator } from "./monitors/monitor-percolator.js";
import type { MonitorStore } from "./monitors/monitor-store.js";
import { MonitorsCore } from "./monitors/monitors-core.js";
import { openMonitors } from "./monitors/open-monitors.js";
import type { RpcMetrics } from "./observability/metrics.js";
import { createRpcMetrics } from "./observability/metrics.js";
import { startMetricsListener } from "./observability/metrics-access.js";
import { createSmtpMailer } from "./portal/mailer.js";
import { createPortalService, defaultPlan } from "./portal/portal-accounts.js";
import { stripeBilling } from "./portal/stripe-billing.js";
import { serverSecret } from "./secrets/server-secret.js";
import { API_SERVICES, buildServer } from "./server.js";
import { SOURCES_HEALTH_SERVICE, sourcesHealthy } from "./sources/sync/sources-health.js";
import { startSync } from "./sources/sync/start-sync.js";
import { reportTopicModel, TopicModelFile, topicModelPath } from "./topics/model-file.js";

/** File under THREADSIGHT_DATA_DIR holding the generated page-token secret. */
export const PAGE_TOKEN_SECRET_FILE = "page-token.secret";

/** Query embeddings kept in the LRU cache. */
const QUERY_CACHE_SIZE = 10_000;

/** A wired, not yet listening service. */
export interface Service {
  app: FastifyInstance;
  keys: KeyService;
  accounts: AccountsStore;
  index: SearchIndex;
  limits: Limits;
  monitors: MonitorStore;
  health: HealthMonitor;
  /** The RPC metrics, for a separate metrics listener. */
  metrics: RpcMetrics;
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

/** Optional parts of the service. */
export interface ServiceOptions {
  /** Poll the live sources inside the server (`threadsight serve --sync`). */
  sync?: boolean;
}

/** Builds the whole service from configuration. Fails fast with a clear error on bad wiring. */
export async function createService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Service> {
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const accounts = await openAccountsStore(config);
    closers.push(() => accounts.close());
    const keys = createKeyService({ store: accounts, rotationGraceSeconds: config.keyRotationGraceSeconds });
    // Usage rows missed during an accounts-store outage are written when it returns.
    const usage = retryingUsage(accounts, (e) => {
      if (e.kind === "flushed")
        logger.info({ rows: e.rows }, "usage recorded during the accounts-store outage written");
      else if (e.kind === "dropped")
        logger.error({ err: e.err, keyId: e.keyId, operation: e.operation, n: e.n }, "usage increment dropped");
      else
        logger.warn(
          { err: String(e.err), keyId: e.keyId, operation: e.operation },
          "accounts store unreachable; usage increment queued",
        );
    });
    closers.push(() => usage.close());
    const limits = await openLimits(config, {
      onRedisError: (err) => logger.warn({ err: err.message }, "redis error; insurance limits answer meanwhile"),
    });
    closers.push(() => limits.close());

    const monitors = await openMonitors({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      delivers: true,
      onError: (err) => logger.error({ err }, "monitor queue error"),
    });
    const monitorStore = monitors.store;
    closers.push(() => monitorStore.close());
    // E-mail channels use the SMTP server the portal's verification mail uses.
    const monitorMailer = config.smtpUrl === undefined ? undefined : createSmtpMailer(config.smtpUrl, config.smtpFrom);
    if (monitorMailer !== undefined) closers.push(() => monitorMailer.close());
    // SQLite: one process polls the outbox. PostgreSQL: pg-boss shares the lanes among instances.
    const deliveries = monitors.runner({
      allowPrivate: config.monitorsAllowPrivateWebhooks,
      retry: config.monitorsRetry,
      ...(monitorMailer !== undefined ? { mailer: monitorMailer } : {}),
      allowance: dailyDeliveries({
        catalog: limits.catalog,
        store: limits.quotaStore,
        planOf: async (accountId) => (await accounts.getAccount(accountId))?.plan,
        onError: (err) => logger.warn({ err }, "monitor delivery limit could not be checked; retrying"),
      }),
      onError: (err) => logger.error({ err }, "monitor delivery pass failed"),
    });
    deliveries.start();
    closers.push(() => deliveries.stop());

    const baseEmbedder = await createEmbedder(config);
    const embedder = cachedEmbedder(baseEmbedder, QUERY_CACHE_SIZE);
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

    const pageTokens = new PageTokens(
      await serverSecret(config.pageTokenSecret, config.dataDir, PAGE_TOKEN_SECRET_FILE),
    );
    const search = new SearchCore({
      index,
      embedder,
      summarizer: summarizerFor(config, logger),
      hybridAlpha: config.hybridAlpha,
      shortQueryAlpha: config.shortQueryAlpha,
      pageTokens,
    });
    const health = new HealthMonitor({
      onCheckFailure: (service, reason) => logger.warn({ service, reason: String(reason) }, "health check failed"),
    });
    health.register("threadsight.index", (signal) => index.ping(signal));
    health.register("threadsight.accounts", async () => (await accounts.ping(), true));
    if (limits.redis !== undefined) {
      const redis = limits.redis;
      health.register("threadsight.limits", async () => redis.status === "ready");
    }
    await health.start();
    closers.push(() => health.stop());

    const metrics = createRpcMetrics();
    const monitorsCore = new MonitorsCore(monitorStore);
    const app = await buildServer({
      config,
      logger,
      metrics,
      authenticator: keys,
      authGuard: limits.authFailures,
      afterAuth: [
        createLimitsInterceptor({
          enforcer: limits.enforcer,
          usage,
          onUsageError: (err, keyId, operation) => logger.error({ err, keyId, operation }, "recording usage failed"),
          onReleaseError: (err, keyId, operation) =>
            logger.warn({ err, keyId, operation }, "giving back the quota point of a failed call failed"),
        }),
      ],
      implementations: {
        search: searchService(search),
        trends: trendService(trends),
        insights: insightsService(new AggregateCore({ index, embedder })),
        leads: leadService(
          new LeadsCore({ index, embedder, hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha }),
        ),
        usage: usageService({ enforcer: limits.enforcer, store: accounts }),
        monitors: monitorService(
          monitorsCore,
          limits.catalog,
          pageTokens,
          new MonitorDryRun({
            index,
            embedder,
            alphas: { hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha },
          }),
        ),
        posts: postService(new PostsCore({ index, embedder })),
      },
      ecosystem: ecosystemRoutes(API_SERVICES, health),
      readiness: async () =>
        Object.fromEntries(
          // Non-gating checks (the live sources) never make the server unready.
          [...health.snapshot()]
            .filter(([name]) => name !== "" && health.gates(name))
            .map(([name, s]) => [name, s === "SERVING"]),
        ),
      ...(config.portalEnabled
        ? {
            portalMonitors: { core: monitorsCore, catalog: limits.catalog },
            portal: createPortalService({
              store: accounts,
              keys,
              enforcer: limits.enforcer,
              catalog: limits.catalog,
              sessionTtlSeconds: config.portalSessionTtlSeconds,
              // Without Stripe the portal's default provider allows moves to the free plan only.
              ...(config.stripe === undefined
                ? {}
                : {
                    billing: stripeBilling({
                      settings: config.stripe,
                      keys,
                      freePlan: defaultPlan(limits.catalog),
                      onEvent: (type, accountId, plan) =>
                        logger.info({ event: type, accountId, plan }, "billing moved an account"),
                    }),
                  }),
              publicUrl: config.portalPublicUrl,
              ...(config.smtpUrl !== undefined ? { mailer: createSmtpMailer(config.smtpUrl, config.smtpFrom) } : {}),
              // The error names the server and the refusal, never the link (it is a credential).
              onMailError: (err) => logger.error({ reason: (err as Error).message }, "portal mail not sent"),
            }),
          }
        : {}),
    });
    if (options.sync === true) {
      // Polls write with the uncached embedder (post texts would only evict cached queries)
      // through the same pipeline as `threadsight ingest`; their metrics join /metrics.
      const enricher = await createIngestEnricher(config.dataDir, baseEmbedder);
      closers.push(() => enricher.close());
      // Live posts are matched against the monitors like ingested ones (their outbox is the same).
      const upserted = monitorPercolator({
        store: monitorStore,
        embedder: baseEmbedder,
        alphas: { hybridAlpha: config.hybridAlpha, shortQueryAlpha: config.shortQueryAlpha },
      });
      const sync = await startSync(
        config,
        { index, embedder: baseEmbedder, enricher, upserted, origin: "sync" },
        {
          registry: metrics.registry,
          log: (line) => logger.warn({ sync: line }, "live source"),
          onPoll: (summary) =>
            summary.error === undefined
              ? logger.info({ poll: summary }, "live source polled")
              : logger.warn({ poll: summary }, "live source poll failed"),
          onStoreError: (err) => logger.warn({ err: String(err) }, "source store error"),
        },
      );
      closers.push(() => sync.stop());
      // Reported under its own name, never in the overall status: a failing forum must not take
      // the API out of a load balancer.
      health.register(SOURCES_HEALTH_SERVICE, () => sourcesHealthy(sync.store), { gating: false });
      logger.info({ owner: sync.owner, store: sync.store.backend }, "live-source sync running");
    }
    let closing: Promise<void> | undefined;
    return {
      app,
      keys,
      accounts,
      index,
      limits,
      monitors: monitorStore,
      health,
      metrics,
      close() {
        closing ??= (async () => {
          // NOT_SERVING first, so load balancers stop sending and health watchers end their
          // streams; then the port closes and in-flight calls drain.
          health.shutdown();
          try {
            await app.close();
          } finally {
            // The index and stores close even when the server's close failed, or the process
            // would stay alive on their handles.
            for (const close of closers.reverse())
              await Promise.resolve(close()).catch((err: unknown) => logger.error({ err }, "closing a store failed"));
            logger.info("index and stores closed");
          }
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
export async function runService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<void> {
  const service = await createService(config, logger, options);
  await service.app.listen({ port: config.port, host: config.host });
  const { address: metricsAddress } = config.metricsAccess;
  const metricsListener =
    metricsAddress === undefined
      ? undefined
      : await startMetricsListener(service.metrics.registry, { ...config.metricsAccess, address: metricsAddress });
  if (metricsListener !== undefined)
    logger.info({ host: metricsAddress!.host, port: metricsListener.port }, "metrics listening");
  const address = service.app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  logger.info({ host: config.host, port, tls: config.tlsCertFile !== undefined }, "threadsight listening");
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal }, "shutting down: draining in-flight calls");
      Promise.all([service.close(), metricsListener?.close()]).then(
        () => resolve(),
        (err: unknown) => {
          logger.error({ err }, "shutdown failed");
          resolve();
        },
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  logger.info("stopped");
}
