/**
 * The HTTP client every connector uses, polite by construction: it identifies itself with a
 * descriptive User-Agent, spends at most a per-poll request budget, runs at most `concurrency`
 * requests at once spaced `minIntervalMs` apart, times requests out, retries 429, 5xx, timeouts,
 * network failures and unparseable bodies with exponential backoff and jitter, honours
 * `Retry-After` (and any wait a connector reads from its API's own fields, such as Stack
 * Exchange's `backoff`), and makes conditional requests when given an ETag or Last-Modified.
 * One client is made per source per poll, so the budget is the source's, not the process's.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { SourceRequestError } from "./http-error.js";
import type { WireAnswer } from "./http-transport.js";
import { send } from "./http-transport.js";
import { backoffMs, retryAfterMs } from "./retry-after.js";

/** Politeness settings; {@link DEFAULT_POLITENESS} holds the defaults. */
export interface Politeness {
  userAgent: string;
  /** Most requests in one poll of one source, retries included. */
  maxRequests: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Least time between the starts of two requests, ms. */
  minIntervalMs: number;
  /** Per-request timeout, ms (headers and body). */
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff step and its ceiling, ms. */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** A server asking us to wait longer than this is not waited on in the poll: it fails with retryAt. */
  maxWaitMs: number;
}

/** The defaults, documented in docs/guides/live-sources.md. */
export const DEFAULT_POLITENESS: Politeness = {
  userAgent: "threadsight-sync/0.1 (live-source connector)",
  maxRequests: 500,
  concurrency: 4,
  minIntervalMs: 100,
  timeoutMs: 15_000,
  retries: 4,
  backoffBaseMs: 500,
  backoffCapMs: 30_000,
  maxWaitMs: 120_000,
};

/** Per-request options. */
export interface RequestOptions {
  headers?: Record<string, string>;
  /** Validators from an earlier answer: a 304 then comes back as `notModified`. */
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** Waits set by {@link PoliteHttpClient.pause} under this key apply to this request. */
  key?: string;
  /** A form body: the request is then a POST of `application/x-www-form-urlencoded` (OAuth token grants). */
  form?: Record<string, string>;
}

/** A successful answer (2xx or 304). */
export interface HttpAnswer<T> {
  status: number;
  notModified: boolean;
  /** Parsed body; undefined when notModified. */
  body: T | undefined;
  headers: Headers;
}

/** The client a poll gets. */
export interface PoliteHttpClient {
  /** A GET, or a form POST when `options.form` is given, whose body is JSON. */
  getJson<T = unknown>(url: string, options?: RequestOptions): Promise<HttpAnswer<T>>;
  getText(url: string, options?: RequestOptions): Promise<HttpAnswer<string>>;
  /** Holds back requests under `key` for `ms` (an API's own backoff field). */
  pause(key: string, ms: number): void;
  /** Requests started so far, retries included. */
  readonly requests: number;
}

/** A transient failure worth another attempt, and how long the server asked us to wait. */
class Retryable extends Error {
  constructor(
    readonly kind: SourceRequestError["kind"],
    message: string,
    readonly waitMs?: number,
  ) {
    super(message);
  }
}

/** Creates a client with `politeness` (defaults filled in); `random` feeds the jitter. */
export function createPoliteClient(
  politeness: Partial<Politeness> = {},
  signal?: AbortSignal,
  random: () => number = Math.random,
): PoliteHttpClient {
  const p: Politeness = { ...DEFAULT_POLITENESS, ...politeness };
  let requests = 0;
  let active = 0;
  let lastStart = 0;
  const queue: (() => void)[] = [];
  const pausedUntil = new Map<string, number>();

  const acquire = async (): Promise<void> => {
    if (active >= p.concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    active += 1;
  };
  const release = (): void => {
    active -= 1;
    queue.shift()?.();
  };

  /** Waits for the spacing, the key's pause, then counts one request against the budget. */
  const admit = async (key: string | undefined): Promise<void> => {
    // Looked at again after each sleep: another request may have been told to back off (a 429
    // with Retry-After) while this one waited. A wait after a failure without a key ("") holds
    // back every request of the poll.
    for (;;) {
      const until = Math.max(pausedUntil.get(key ?? "") ?? 0, pausedUntil.get("") ?? 0, lastStart + p.minIntervalMs);
      const wait = until - Date.now();
      if (wait <= 0) break;
      if (wait > p.maxWaitMs)
        throw new SourceRequestError(
          "rate_limited",
          `the server asked for a pause of ${Math.ceil(wait / 1000)} s before the next request`,
          until,
        );
      await sleep(wait, undefined, { signal });
    }
    if (requests >= p.maxRequests)
      throw new SourceRequestError("budget_exhausted", `request budget of ${p.maxRequests} per poll spent`);
    requests += 1;
    lastStart = Date.now();
  };

  const attempt = async (
    url: string,
    options: RequestOptions,
    parse: (text: string) => unknown,
  ): Promise<HttpAnswer<unknown>> => {
    const headers: Record<string, string> = {
      "user-agent": p.userAgent,
      accept: "application/json, application/xml;q=0.9, */*;q=0.8",
      ...options.headers,
    };
    if (options.etag !== undefined) headers["if-none-match"] = options.etag;
    if (options.lastModified !== undefined) headers["if-modified-since"] = options.lastModified;
    const timeout = AbortSignal.timeout(p.timeoutMs);
    const both = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    let res: WireAnswer;
    try {
      res = await send(
        url,
        options.form === undefined
          ? { method: "GET", headers, signal: both, followRedirects: true }
          : {
              method: "POST",
              headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams(options.form).toString(),
              signal: both,
              followRedirects: false,
            },
      );
      if (res.status === 304) return { status: 304, notModified: true, body: undefined, headers: res.headers };
    } catch (err) {
      signal?.throwIfAborted();
      if (timeout.aborted) throw new Retryable("timeout", `no answer within ${p.timeoutMs} ms`);
      throw new Retryable("network", (err as Error).message);
    }
    const text = res.text;
    if (res.status === 429)
      throw new Retryable(
        "rate_limited",
        "HTTP 429 Too Many Requests",
        retryAfterMs(res.headers.get("retry-after"), Date.now()),
      );
    if (res.status >= 500)
      throw new Retryable(
        "server_error",
        `HTTP ${res.status}`,
        retryAfterMs(res.headers.get("retry-after"), Date.now()),
      );
    if (res.status < 200 || res.status >= 300) {
      throw new SourceRequestError(
        "client_error",
        `HTTP ${res.status} from ${new URL(url).host}${new URL(url).pathname}: ${text.slice(0, 200)}`,
        undefined,
        { status: res.status },
      );
    }
    let body: unknown;
    try {
      body = parse(text);
    } catch (err) {
      throw new Retryable("bad_response", `unreadable body (${(err as Error).message})`);
    }
    return { status: res.status, notModified: false, body, headers: res.headers };
  };

  const request = async (
    url: string,
    options: RequestOptions,
    parse: (text: string) => unknown,
  ): Promise<HttpAnswer<unknown>> => {
    for (let n = 0; ; n += 1) {
      await acquire();
      let failure: Retryable;
      try {
        await admit(options.key);
        return await attempt(url, options, parse);
      } catch (err) {
        if (!(err instanceof Retryable)) throw err;
        failure = err;
      } finally {
        release();
      }
      const wait = failure.waitMs ?? backoffMs(n, p.backoffBaseMs, p.backoffCapMs, random);
      if (failure.waitMs !== undefined && failure.waitMs > p.maxWaitMs) {
        throw new SourceRequestError(
          failure.kind,
          `${failure.message}; the server asked for ${Math.ceil(failure.waitMs / 1000)} s`,
          Date.now() + failure.waitMs,
        );
      }
      if (n >= p.retries)
        throw new SourceRequestError(
          failure.kind,
          `${failure.message} (after ${n + 1} attempts)`,
          failure.waitMs === undefined ? undefined : Date.now() + failure.waitMs,
        );
      // The wait also holds back the other requests of this poll: the server is struggling or
      // limiting us, and sending them meanwhile would only add to it.
      const until = Date.now() + wait;
      const key = options.key ?? "";
      pausedUntil.set(key, Math.max(pausedUntil.get(key) ?? 0, until));
    }
  };

  return {
    async getJson<T>(url: string, options: RequestOptions = {}) {
      return (await request(url, options, (t) => JSON.parse(t))) as HttpAnswer<T>;
    },
    async getText(url: string, options: RequestOptions = {}) {
      return (await request(url, options, (t) => t)) as HttpAnswer<string>;
    },
    pause(key, ms) {
      pausedUntil.set(key, Math.max(pausedUntil.get(key) ?? 0, Date.now() + ms));
    },
    get requests() {
      return requests;
    },
  };
}
