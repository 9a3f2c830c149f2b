/**
 * Environment -> one frozen, typed Config. Only main.ts and the CLI call loadConfig; everything
 * else receives the pieces it needs. An invalid value stops start-up with a message naming the
 * variable and the rule, before anything listens or opens a store.
 */
import net from "node:net";
import path from "node:path";
import type { PlanId } from "./accounts/caller.js";
import { PLAN_IDS } from "./accounts/caller.js";
import { defaultMiniLmDirectory } from "./enrich/minilm/minilm-files.js";
import type { RetryPolicy } from "./monitors/retry-schedule.js";
import { DEFAULT_RETRY } from "./monitors/retry-schedule.js";
import type { MetricsAccess } from "./observability/metrics-access.js";
import { PACKAGE_ROOT } from "./package-root.js";
import type { ConnectionLimits } from "./transport/connection-limits.js";
import { DEFAULT_CONNECTION_LIMITS } from "./transport/connection-limits.js";

/** Thrown for an invalid environment variable; the message names it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** The bundled encoders EMBEDDINGS_MODEL may name when EMBEDDINGS_URL is unset. */
export const LOCAL_ENCODERS = ["use-lite", "all-minilm-l6-v2"] as const;
/** One of {@link LOCAL_ENCODERS}. */
export type LocalEncoderName = (typeof LOCAL_ENCODERS)[number];

/** Everything the process can be configured with. Every field has an env var in the README. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** TLS: when both are set, the port speaks TLS with ALPN (h2 and http/1.1). */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** Largest accepted request body, bytes (REST and RPC). */
  maxBodyBytes: number;
  /** Server-side deadline applied when the client sets none, ms. */
  requestTimeoutMs: number;
  /** How long SIGTERM waits for in-flight calls before closing, ms. */
  shutdownTimeoutMs: number;
  /** PostgreSQL accounts/usage store; SQLite in dataDir when unset. */
  databaseUrl: string | undefined;
  /** Redis for rate limits and quotas; in-process + SQLite when unset. */
  redisUrl: string | undefined;
  /** Weaviate HTTP endpoint; embedded LanceDB in dataDir when unset. */
  weaviateUrl: string | undefined;
  /** Weaviate gRPC endpoint (host:port); defaults to the HTTP host on port 50051. */
  weaviateGrpcUrl: string | undefined;
  weaviateApiKey: string | undefined;
  weaviateCollection: string;
  weaviateReplicationFactor: number;
  weaviateShards: number;
  weaviateConsistency: "ONE" | "QUORUM" | "ALL";
  /** Filter matches below which Weaviate answers a filtered vector search by an exact scan; unset: the adapter's default. */
  weaviateFlatSearchCutoff: number | undefined;
  /** Hybrid search: weight of the vector side 0..1, and the fusion algorithm. */
  hybridAlpha: number;
  /** The same weight for a query of one or two words (src/core/hybrid-alpha.ts). */
  shortQueryAlpha: number;
  hybridFusion: "relativeScore" | "rankedFusion";
  /** OpenAI-compatible embeddings endpoint; the bundled sentence encoder when unset. */
  embeddingsUrl: string | undefined;
  /** The remote model's name with EMBEDDINGS_URL; without it, the bundled encoder to run. */
  embeddingsModel: string;
  /** The bundled encoder when EMBEDDINGS_URL is unset (EMBEDDINGS_MODEL names it). */
  localEncoder: LocalEncoderName;
  /** Folder holding all-MiniLM-L6-v2's model.safetensors and tokenizer.json. */
  embeddingsModelDir: string;
  embeddingsApiKey: string | undefined;
  /** Worker threads for the bundled sentence encoder. */
  embedWorkers: number;
  /** OpenAI-compatible chat completions endpoint for ai_summary; extractive when unset. */
  summaryLlmUrl: string | undefined;
  summaryLlmModel: string;
  summaryLlmApiKey: string | undefined;
  summaryLlmTimeoutMs: number;
  /** Plan catalog file. */
  plansFile: string;
  /** Grace period during which a rotated-out key still works, seconds. */
  keyRotationGraceSeconds: number;
  /** Policy for quotas while Redis is unreachable. */
  quotaFailMode: "open" | "closed";
  /** Allowed CORS origins; empty = CORS off. */
  corsOrigins: readonly string[];
  /** Serve the developer portal under /portal. */
  portalEnabled: boolean;
  /** Let monitor webhooks reach private and loopback addresses (refused by default: SSRF). */
  monitorsAllowPrivateWebhooks: boolean;
  /** Monitor deliveries' retry schedule (first delay, cap, how long an event is retried). */
  monitorsRetry: Readonly<RetryPolicy>;
  /** Lifetime of a portal session (fixed, never extended), seconds. */
  portalSessionTtlSeconds: number;
  /** Secure, `__Host-`-prefixed portal cookies; false only for plain-HTTP hosts other than localhost. */
  portalCookieSecure: boolean;
  /** Stripe billing for self-service upgrades; undefined = no payment provider (Free only). */
  stripe: StripeConfig | undefined;
  /** Live sources (src/sources): items one poll of one source may look at, at most. */
  syncMaxItemsPerPoll: number;
  /** Live sources: requests one poll of one source may make, retries included. */
  syncMaxRequestsPerPoll: number;
  /** Live sources: how long a claim on a source lasts without a renewal, seconds. */
  syncLeaseSeconds: number;
  /** Live sources: the User-Agent every connector request carries. */
  syncUserAgent: string;
  /** Live sources: per-request timeout, ms. */
  syncRequestTimeoutMs: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy):
   * false (the socket's address), true (any), a hop count, or addresses/CIDRs/proxy-addr names.
   */
  trustProxy: TrustProxy;
  /**
   * Secret that signs page tokens; set it to the same value on every instance behind one
   * address. Unset: generated once and kept in dataDir/page-token.secret.
   */
  pageTokenSecret: string | undefined;
  /** /metrics: a separate listener (METRICS_ADDRESS) and/or a bearer token (METRICS_TOKEN); neither: not served. */
  metricsAccess: Readonly<MetricsAccess>;
  /** Deadlines and caps per connection state (src/transport/connection-limits.ts). */
  connectionLimits: Readonly<ConnectionLimits>;
  /** SMTP server for the portal's verification mail (smtp:// or smtps://); unset: none is sent. */
  smtpUrl: string | undefined;
  /** The From address of portal mail. */
  smtpFrom: string;
  /**
   * The portal's public origin, used in links sent by mail. Configured, never taken from the
   * request's Host header, which a sender could set to their own site to capture the link.
   */
  portalPublicUrl: string;
}

/** Stripe settings, all set together (docs/guides/plans-and-keys.md). */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** The Stripe price id of each plan that can be bought. */
  priceIds: Readonly<Partial<Record<PlanId, string>>>;
  apiBase: string;
  webhookToleranceSeconds: number;
}

/** STRIPE_PRICE_IDS: `plan=price_id` pairs separated by commas, each plan at most once. */
function priceIds(raw: string): Partial<Record<PlanId, string>> {
  const out: Partial<Record<PlanId, string>> = {};
  for (const pair of raw
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [plan, price, extra] = pair.split("=").map((p) => p.trim());
    if (plan === undefined || price === undefined || price === "" || extra !== undefined) {
      throw new ConfigError(`STRIPE_PRICE_IDS must be plan=price_id pairs separated by commas, got "${pair}"`);
    }
    if (!(PLAN_IDS as readonly string[]).includes(plan)) {
      throw new ConfigError(`STRIPE_PRICE_IDS: plan must be one of ${PLAN_IDS.join(", ")}, got "${plan}"`);
    }
    if (plan in out) throw new ConfigError(`STRIPE_PRICE_IDS names plan "${plan}" twice`);
    out[plan as PlanId] = price;
  }
  if (Object.keys(out).length === 0)
    throw new ConfigError("STRIPE_PRICE_IDS must name at least one plan=price_id when STRIPE_SECRET_KEY is set");
  return out;
}

function stripeConfig(env: Env): StripeConfig | undefined {
  const secretKey = opt(env, "STRIPE_SECRET_KEY");
  const webhookSecret = opt(env, "STRIPE_WEBHOOK_SECRET");
  if (secretKey === undefined && webhookSecret === undefined) {
    if (opt(env, "STRIPE_PRICE_IDS") !== undefined)
      throw new ConfigError("STRIPE_PRICE_IDS is set but STRIPE_SECRET_KEY is not");
    return undefined;
  }
  if (secretKey === undefined || webhookSecret === undefined) {
    throw new ConfigError("STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together");
  }
  const prices = opt(env, "STRIPE_PRICE_IDS");
  if (prices === undefined)
    throw new ConfigError(
      "STRIPE_PRICE_IDS must be set when STRIPE_SECRET_KEY is (e.g. pro=price_123,starter=price_456)",
    );
  return {
    secretKey,
    webhookSecret,
    priceIds: Object.freeze(priceIds(prices)),
    apiBase: url(env, "STRIPE_API_BASE", ["http:", "https:"]) ?? "https://api.stripe.com",
    webhookToleranceSeconds: int(env, "STRIPE_WEBHOOK_TOLERANCE_SECONDS", 300, 1, 3600),
  };
}

/** The TRUST_PROXY setting, in the forms Fastify's trustProxy accepts. */
export type TrustProxy = boolean | number | readonly string[];

type Env = Readonly<Record<string, string | undefined>>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === "" ? fallback : v;
}

function opt(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = opt(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  }
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function optInt(env: Env, name: string, min: number, max: number): number | undefined {
  return opt(env, name) === undefined ? undefined : int(env, name, 0, min, max);
}

function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = opt(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number, got "${raw}"`);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = opt(env, name);
  if (raw === undefined) return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = opt(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = opt(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** The User-Agent of live-source requests unless SYNC_USER_AGENT says otherwise. */
export const DEFAULT_SYNC_USER_AGENT =
  "threadsight-sync/0.1 (live-source connector; set SYNC_USER_AGENT to name your deployment and a contact)";
function secret(env: Env, name: string, minLength: number): string | undefined {
  const raw = opt(env, name);
  if (raw !== undefined && raw.length < minLength)
    throw new ConfigError(`${name} must be at least ${minLength} characters (a random string), got ${raw.length}`);
  return raw;
}

function hostPort(env: Env, name: string): { host: string; port: number } | undefined {
  const raw = opt(env, name);
  if (raw === undefined) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(raw.trim());
  const port = Number(match?.[2]);
  if (match === null || port > 65535)
    throw new ConfigError(`${name} must be host:port (e.g. 127.0.0.1:9464), got "${raw}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

/** Names proxy-addr understands besides addresses and CIDRs. */
const PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"];

function trustProxy(env: Env): TrustProxy {
  const raw = opt(env, "TRUST_PROXY")?.trim();
  if (raw === undefined || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return int(env, "TRUST_PROXY", 0, 1, 100);
  const entries = raw
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [ip, bits, extra] = entry.split("/");
    const family = net.isIP(ip ?? "");
    const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !okBits || extra !== undefined)) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, CIDRs or ${PROXY_NAMES.join("/")}; "${entry}" is none of these`,
      );
    }
  }
  return Object.freeze(entries);
}

function connectionLimits(env: Env): Readonly<ConnectionLimits> {
  const d = DEFAULT_CONNECTION_LIMITS;
  const limits: ConnectionLimits = {
    firstBytesTimeoutMs: int(env, "FIRST_BYTES_TIMEOUT_MS", d.firstBytesTimeoutMs, 100, 600_000),
    headersTimeoutMs: int(env, "HEADERS_TIMEOUT_MS", d.headersTimeoutMs, 100, 600_000),
    requestBodyTimeoutMs: int(env, "REQUEST_BODY_TIMEOUT_MS", d.requestBodyTimeoutMs, 100, 3_600_000),
    keepAliveTimeoutMs: int(env, "KEEP_ALIVE_TIMEOUT_MS", d.keepAliveTimeoutMs, 100, 600_000),
    http2IdleTimeoutMs: int(env, "HTTP2_IDLE_TIMEOUT_MS", d.http2IdleTimeoutMs, 100, 3_600_000),
    http2MaxConcurrentStreams: int(env, "HTTP2_MAX_CONCURRENT_STREAMS", d.http2MaxConcurrentStreams, 1, 10_000),
    maxConnectionsPerAddress: int(env, "MAX_CONNECTIONS_PER_ADDRESS", d.maxConnectionsPerAddress, 1, 1_000_000),
  };
  // Node refuses a headers deadline later than the whole-request one.
  if (limits.headersTimeoutMs > limits.requestBodyTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed REQUEST_BODY_TIMEOUT_MS (${limits.requestBodyTimeoutMs})`,
    );
  }
  return Object.freeze(limits);
}

/** MONITORS_RETRY_*: the delivery retry schedule (compressed in tests to run an outage in seconds). */
function monitorsRetry(env: Env): Readonly<RetryPolicy> {
  const d = DEFAULT_RETRY;
  const policy: RetryPolicy = {
    baseDelayMs: int(env, "MONITORS_RETRY_BASE_MS", d.baseDelayMs, 1, 3_600_000),
    maxDelayMs: int(env, "MONITORS_RETRY_MAX_DELAY_MS", d.maxDelayMs, 1, 86_400_000),
    retryWindowMs: int(env, "MONITORS_RETRY_WINDOW_MS", d.retryWindowMs, 1_000, 30 * 86_400_000),
  };
  if (policy.maxDelayMs < policy.baseDelayMs) {
    throw new ConfigError(
      `MONITORS_RETRY_MAX_DELAY_MS (${policy.maxDelayMs}) must not be below MONITORS_RETRY_BASE_MS (${policy.baseDelayMs})`,
    );
  }
  return Object.freeze(policy);
}

/** Reads and validates the whole configuration. Throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Readonly<Config> {
  const tlsCertFile = opt(env, "TLS_CERT_FILE");
  const tlsKeyFile = opt(env, "TLS_KEY_FILE");
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) {
    throw new ConfigError("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
  const embeddingsUrl = url(env, "EMBEDDINGS_URL", ["http:", "https:"]);
  // Without a remote endpoint EMBEDDINGS_MODEL picks a bundled encoder, so a typo fails here.
  const localEncoder: LocalEncoderName =
    embeddingsUrl === undefined ? oneOf(env, "EMBEDDINGS_MODEL", "use-lite", LOCAL_ENCODERS) : "use-lite";
  const config: Config = {
    host: str(env, "HOST", "127.0.0.1"),
    port: int(env, "PORT", 8080, 0, 65535),
    dataDir: path.resolve(cwd, str(env, "THREADSIGHT_DATA_DIR", "data")),
    logLevel: oneOf(env, "LOG_LEVEL", "info", ["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    tlsCertFile,
    tlsKeyFile,
    maxBodyBytes: int(env, "MAX_BODY_BYTES", 64 * 1024, 1024, 16 * 1024 * 1024),
    requestTimeoutMs: int(env, "REQUEST_TIMEOUT_MS", 10_000, 100, 600_000),
    shutdownTimeoutMs: int(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    databaseUrl: url(env, "DATABASE_URL", ["postgres:", "postgresql:"]),
    redisUrl: url(env, "REDIS_URL", ["redis:", "rediss:"]),
    weaviateUrl: url(env, "WEAVIATE_URL", ["http:", "https:"]),
    weaviateGrpcUrl: opt(env, "WEAVIATE_GRPC_URL"),
    weaviateApiKey: opt(env, "WEAVIATE_API_KEY"),
    weaviateCollection: str(env, "WEAVIATE_COLLECTION", "ThreadsightPost"),
    weaviateReplicationFactor: int(env, "WEAVIATE_REPLICATION_FACTOR", 1, 1, 9),
    weaviateShards: int(env, "WEAVIATE_SHARDS", 1, 1, 64),
    weaviateConsistency: oneOf(env, "WEAVIATE_CONSISTENCY", "QUORUM", ["ONE", "QUORUM", "ALL"]),
    weaviateFlatSearchCutoff: optInt(env, "WEAVIATE_FLAT_SEARCH_CUTOFF", 0, 100_000_000),
    // 0.5 balances two measurements (docs/EVALUATION.md, "Retrieval"): judged forum questions
    // rank best near 0.7, but short queries naming a product find it far less often there (the
    // small encoder places rare names poorly; test/eval/named-product-queries.ts).
    hybridAlpha: num(env, "HYBRID_ALPHA", 0.5, 0, 1),
    // A one- or two-word query is mostly a name, which the keyword side finds and the small
    // encoder places poorly (src/core/hybrid-alpha.ts; docs/EVALUATION.md, "Retrieval").
    shortQueryAlpha: num(env, "HYBRID_ALPHA_SHORT", 0.3, 0, 1),
    hybridFusion: oneOf(env, "HYBRID_FUSION", "relativeScore", ["relativeScore", "rankedFusion"]),
    embeddingsUrl,
    embeddingsModel:
      embeddingsUrl === undefined ? localEncoder : str(env, "EMBEDDINGS_MODEL", "text-embedding-3-small"),
    localEncoder,
    embeddingsModelDir: path.resolve(cwd, str(env, "EMBEDDINGS_MODEL_DIR", defaultMiniLmDirectory(env))),
    embeddingsApiKey: opt(env, "EMBEDDINGS_API_KEY"),
    embedWorkers: int(env, "EMBED_WORKERS", 2, 1, 64),
    summaryLlmUrl: url(env, "SUMMARY_LLM_URL", ["http:", "https:"]),
    summaryLlmModel: str(env, "SUMMARY_LLM_MODEL", "gpt-4o-mini"),
    summaryLlmApiKey: opt(env, "SUMMARY_LLM_API_KEY"),
    summaryLlmTimeoutMs: int(env, "SUMMARY_LLM_TIMEOUT_MS", 4_000, 100, 120_000),
    plansFile: path.resolve(cwd, str(env, "PLANS_FILE", path.join(PACKAGE_ROOT, "config/plans/variant-b.json"))),
    keyRotationGraceSeconds: int(env, "KEY_ROTATION_GRACE_SECONDS", 86_400, 0, 30 * 86_400),
    quotaFailMode: oneOf(env, "QUOTA_FAIL_MODE", "closed", ["open", "closed"]),
    corsOrigins: (opt(env, "CORS_ORIGINS") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    portalEnabled: bool(env, "PORTAL_ENABLED", true),
    monitorsAllowPrivateWebhooks: bool(env, "MONITORS_ALLOW_PRIVATE_WEBHOOKS", false),
    monitorsRetry: monitorsRetry(env),
    portalSessionTtlSeconds: int(env, "PORTAL_SESSION_TTL_SECONDS", 12 * 3600, 1, 30 * 86_400),
    portalCookieSecure: bool(env, "PORTAL_COOKIE_SECURE", true),
    stripe: stripeConfig(env),
    syncMaxItemsPerPoll: int(env, "SYNC_MAX_ITEMS_PER_POLL", 1_000, 1, 100_000),
    syncMaxRequestsPerPoll: int(env, "SYNC_MAX_REQUESTS_PER_POLL", 1_500, 1, 100_000),
    syncLeaseSeconds: int(env, "SYNC_LEASE_SECONDS", 120, 5, 3_600),
    syncUserAgent: str(env, "SYNC_USER_AGENT", DEFAULT_SYNC_USER_AGENT),
    syncRequestTimeoutMs: int(env, "SYNC_REQUEST_TIMEOUT_MS", 15_000, 100, 300_000),
    trustProxy: trustProxy(env),
    pageTokenSecret: secret(env, "PAGE_TOKEN_SECRET", 32),
    metricsAccess: Object.freeze({
      address: hostPort(env, "METRICS_ADDRESS"),
      token: secret(env, "METRICS_TOKEN", 16),
    }),
    connectionLimits: connectionLimits(env),
    smtpUrl: url(env, "SMTP_URL", ["smtp:", "smtps:"]),
    smtpFrom: str(env, "SMTP_FROM", "Threadsight <no-reply@localhost>"),
    portalPublicUrl: (
      url(env, "PORTAL_PUBLIC_URL", ["http:", "https:"]) ?? `http://localhost:${env.PORT ?? "8080"}`
    ).replace(/\/+$/, ""),
  };
  return Object.freeze(config);
}
