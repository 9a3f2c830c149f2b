/**
 * A load stream is one operation, over one protocol, with one key, at a fixed request rate: the
 * unit both load tools run (autocannon for REST, ghz for gRPC). Splitting the mix into streams
 * keeps every call attributable to a key and an operation, which the usage reconciliation needs.
 */
import type { LoadKey } from "./load-keys.js";
import type { QueryFeed } from "./query-feed.js";
import type { Operation } from "./workload.js";
import { OPERATION_NAMES, OPERATIONS, requestBodies } from "./workload.js";

/** The two protocols loaded. */
export type Protocol = "rest" | "grpc";

/** One stream to run. */
export interface StreamSpec {
  /** "rest/semantic_search/pro". */
  id: string;
  protocol: Protocol;
  op: Operation;
  key: LoadKey;
  /** Requests per second (a whole number >= 1: both tools pace in whole requests). */
  rate: number;
  bodies: Record<string, unknown>[];
}

/** One answered (or failed) call as a load tool saw it. */
export interface CallRecord {
  /** Epoch ms when the answer (or failure) arrived. */
  end: number;
  /** Latency, ms. */
  ms: number;
  /** HTTP status ("200", "429"), gRPC status name ("OK", "ResourceExhausted"), or "error: ...". */
  status: string;
}

/** What one run of one stream produced. */
export interface StreamRun {
  id: string;
  protocol: Protocol;
  op: Operation;
  keyLabel: string;
  throttledKey: boolean;
  rate: number;
  /** Calls asked for (rate x seconds) and records received. */
  requested: number;
  calls: CallRecord[];
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  /** True when the run hit its time cap before every call was answered. */
  capped: boolean;
}

/** The record of a finished run of `stream` (started at `startedAt`, ending now). */
export function finishedRun(
  stream: StreamSpec,
  requested: number,
  calls: CallRecord[],
  startedAt: number,
  capped: boolean,
): StreamRun {
  return {
    id: stream.id,
    protocol: stream.protocol,
    op: stream.op,
    keyLabel: stream.key.label,
    throttledKey: stream.key.throttled,
    rate: stream.rate,
    requested,
    calls,
    startedAt,
    endedAt: Date.now(),
    capped,
  };
}

/** An answer that did the work and was metered. */
export function isOk(status: string): boolean {
  return status === "200" || status === "OK";
}

/** A refusal by the limits (429 / RESOURCE_EXHAUSTED). */
export function isThrottled(status: string): boolean {
  return status === "429" || status === "ResourceExhausted";
}

/** True when `status` is fine for this stream: OK, or a 429 on a key expected to get them. */
export function isExpected(run: Pick<StreamRun, "throttledKey">, status: string): boolean {
  return isOk(status) || (run.throttledKey && isThrottled(status));
}

/** Most bodies per stream (a stream longer than this cycles through them). */
const MAX_BODIES = 3000;

/** Bodies for a stream of `rate` req/s over `seconds`: one per call, fresh and hot texts alternating. */
function bodiesFor(op: Operation, rate: number, seconds: number, feed: QueryFeed): Record<string, unknown>[] {
  const count = Math.max(10, Math.min(MAX_BODIES, Math.ceil(rate * seconds)));
  // Trends take no query text; their bodies vary by window and limit only.
  return requestBodies(op, op === "trends" ? [] : feed.mixed(count), count);
}

/**
 * The sustained mix at `totalRate` req/s for `seconds`: every operation over both protocols,
 * its weight split evenly between them, keys rotated so each key is used over REST and gRPC and
 * for several operations.
 */
export function sustainStreams(
  totalRate: number,
  keys: readonly LoadKey[],
  feed: QueryFeed,
  seconds: number,
): StreamSpec[] {
  const sustaining = keys.filter((k) => !k.throttled);
  if (sustaining.length === 0) throw new Error("the key mix has no key able to sustain load");
  const out: StreamSpec[] = [];
  let i = 0;
  for (const protocol of ["rest", "grpc"] as const) {
    for (const op of OPERATION_NAMES) {
      const key = sustaining[i % sustaining.length]!;
      const rate = Math.max(1, Math.round((totalRate * OPERATIONS[op].weight) / 2));
      out.push({
        id: `${protocol}/${op}/${key.label}`,
        protocol,
        op,
        key,
        rate,
        bodies: bodiesFor(op, rate, seconds, feed),
      });
      i++;
    }
  }
  return out;
}

/** Streams in the sustained mix (each needs at least 1 req/s, so this is the mix's lowest rate). */
export function sustainStreamCount(): number {
  return 2 * OPERATION_NAMES.length;
}

/**
 * Streams for the keys expected to be throttled: one REST and one gRPC stream per key (two
 * operations), each at the key's streamRate, which is above Lite's 50/min and far above Free's
 * 3 per week, so their plans refuse a share of the calls all through the run.
 */
export function throttledStreams(keys: readonly LoadKey[], feed: QueryFeed, seconds: number): StreamSpec[] {
  const out: StreamSpec[] = [];
  let i = 0;
  for (const key of keys.filter((k) => k.throttled)) {
    for (const protocol of ["rest", "grpc"] as const) {
      const op = OPERATION_NAMES[i % OPERATION_NAMES.length]!;
      const rate = key.streamRate ?? 1;
      out.push({
        id: `${protocol}/${op}/${key.label}`,
        protocol,
        op,
        key,
        rate,
        bodies: bodiesFor(op, rate, seconds, feed),
      });
      i++;
    }
  }
  return out;
}
