/**
 * Environment -> one frozen, typed Config. Only main.ts and the CLI call loadConfig; everything
 * else receives the pieces it needs. An invalid value stops start-up with a message naming the
 * variable and the rule, before anything listens or opens a store.
 */
import path from "node:path";
import { PACKAGE_ROOT } from "./package-root.js";

/** Thrown for an invalid environment variable; the message names it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

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
  embeddingsModel: string;
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
  /** Lifetime of a portal session (fixed, never extended), seconds. */
  portalSessionTtlSeconds: number;
  /** Secure, `__Host-`-prefixed portal cookies; false only for plain-HTTP hosts other than localhost. */
  portalCookieSecure: boolean;
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

/** Reads and validates the whole configuration. Throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Readonly<Config> {
  const tlsCertFile = opt(env, "TLS_CERT_FILE");
  const tlsKeyFile = opt(env, "TLS_KEY_FILE");
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) {
    throw new ConfigError("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  }
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
    embeddingsUrl: url(env, "EMBEDDINGS_URL", ["http:", "https:"]),
    embeddingsModel: str(env, "EMBEDDINGS_MODEL", "text-embedding-3-small"),
    embeddingsApiKey: opt(env, "EMBEDDINGS_API_KEY"),
    embedWorkers: int(env, "EMBED_WORKERS", 2, 1, 64),
    summaryLlmUrl: url(env, "SUMMARY_LLM_URL", ["http:", "https:"]),
    summaryLlmModel: str(env, "SUMMARY_LLM_MODEL", "gpt-4o-mini"),
    summaryLlmApiKey: opt(env, "SUMMARY_LLM_API_KEY"),
    summaryLlmTimeoutMs: int(env, "SUMMARY_LLM_TIMEOUT_MS", 4_000, 100, 120_000),
    plansFile: path.resolve(cwd, str(env, "PLANS_FILE", path.join(PACKAGE_ROOT, "config/plans/variant-b.json"))),
    keyRotationGraceSeconds: int(env, "KEY_ROTATION_GRACE_SECONDS", 86_400, 0, 30 * 86_400),
    quotaFailMode: oneOf(env, "QUOTA_FAIL_MODE", "closed", ["open", "closed"]),
    corsOrigins: (opt(env, "CORS_ORIGINS") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    portalEnabled: bool(env, "PORTAL_ENABLED", true),
    portalSessionTtlSeconds: int(env, "PORTAL_SESSION_TTL_SECONDS", 12 * 3600, 1, 30 * 86_400),
    portalCookieSecure: bool(env, "PORTAL_COOKIE_SECURE", true),
    smtpUrl: url(env, "SMTP_URL", ["smtp:", "smtps:"]),
    smtpFrom: str(env, "SMTP_FROM", "Threadsight <no-reply@localhost>"),
    portalPublicUrl: (url(env, "PORTAL_PUBLIC_URL", ["http:", "https:"]) ?? `http://localhost:${env.PORT ?? "8080"}`).replace(/\/+$/, ""),
  };
  return Object.freeze(config);
}
