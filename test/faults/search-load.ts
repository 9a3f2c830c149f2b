/**
 * A small closed-loop search load for the fault tests: a few concurrent clients calling
 * SemanticSearch and VectorSearch alternately over REST and gRPC, each call with a client
 * deadline, every outcome recorded with its timing so a test can look at what happened before,
 * during and after the fault it injects. Queries vary so the query-embedding cache does not
 * turn the load into cache hits only (the index is what the faults are about).
 */
import { fromBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";

/** One finished call. */
export interface CallOutcome {
  protocol: "rest" | "grpc";
  operation: "semantic" | "vector";
  /** HTTP status for REST; for gRPC 200 on OK, else the gRPC status code name. */
  status: number | string;
  /** google.rpc.ErrorInfo reason (gRPC) or error.reason (REST); "" on success. */
  reason: string;
  startedAt: number;
  elapsedMs: number;
}

/** Where and how to call. */
export interface SearchLoadOptions {
  /** http://host:port of the service. */
  url: string;
  /** host:port for gRPC. */
  address: string;
  key: string;
  /** Concurrent clients; half call over REST, half over gRPC. */
  clients?: number;
  /** Client deadline of every call, ms. */
  deadlineMs?: number;
  /** Pause between one client's calls, ms. */
  pauseMs?: number;
}

/** A running load; stop() waits for the calls in flight and returns every outcome. */
export interface SearchLoad {
  outcomes: CallOutcome[];
  /**
   * Resolves once `n` calls started after `startedAfter` (epoch ms; default: now) have finished
   * successfully. Counted by start, as the tests count: a call in flight across a fault can
   * succeed after it (the Weaviate client retries inside the call), and says nothing of recovery.
   */
  waitForSuccesses(n: number, opts?: { startedAfter?: number; timeoutMs?: number }): Promise<void>;
  stop(): Promise<CallOutcome[]>;
}

const TOPICS = [
  "raising a seed round",
  "finding a technical cofounder",
  "pricing a SaaS product",
  "hiring the first engineer",
  "marketing on a small budget",
  "customer churn in subscriptions",
  "building a side project",
  "choosing a database",
];

/** Starts the load; it runs until stop(). */
export function startSearchLoad(opts: SearchLoadOptions): SearchLoad {
  const clients = opts.clients ?? 4;
  const deadlineMs = opts.deadlineMs ?? 8_000;
  const pauseMs = opts.pauseMs ?? 50;
  const outcomes: CallOutcome[] = [];
  const grpcClient = createGrpcJsClient(SearchService, opts.address);
  let running = true;
  let seq = 0;

  const call = async (protocol: "rest" | "grpc", operation: "semantic" | "vector"): Promise<CallOutcome> => {
    const query = `${TOPICS[seq % TOPICS.length]} ${Math.floor(seq++ / TOPICS.length)}`;
    const startedAt = Date.now();
    const done = (status: number | string, reason: string): CallOutcome => ({
      protocol,
      operation,
      status,
      reason,
      startedAt,
      elapsedMs: Date.now() - startedAt,
    });
    if (protocol === "rest") {
      const body =
        operation === "semantic"
          ? { query, limit: 5 }
          : { query, limit: 5, start_date: "2010-01-01", end_date: "2019-12-31" };
      try {
        const res = await fetch(`${opts.url}/api/v1/search/${operation}`, {
          method: "POST",
          headers: { authorization: `Bearer ${opts.key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(deadlineMs + 5_000),
        });
        const parsed = (await res.json()) as { error?: { reason?: string } };
        return done(res.status, parsed.error?.reason ?? "");
      } catch (err) {
        return done("NETWORK", (err as Error).name);
      }
    }
    const method = operation === "semantic" ? SearchService.method.semanticSearch : SearchService.method.vectorSearch;
    const request =
      operation === "semantic"
        ? { query, limit: 5 }
        : { query, limit: 5, startDate: "2010-01-01", endDate: "2019-12-31" };
    const out = await callUnaryWithMetadata(
      grpcClient,
      method as typeof SearchService.method.semanticSearch,
      request,
      { authorization: `Bearer ${opts.key}` },
      { deadline: Date.now() + deadlineMs },
    );
    if (out.error === undefined) return done(200, "");
    return done(grpc.status[out.error.code] ?? String(out.error.code), reasonFromTrailer(out.error.metadata));
  };

  const worker = async (i: number): Promise<void> => {
    const protocol = i % 2 === 0 ? "rest" : "grpc";
    let n = 0;
    while (running) {
      outcomes.push(await call(protocol, n++ % 2 === 0 ? "semantic" : "vector"));
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const workers = Array.from({ length: clients }, (_, i) => worker(i));

  return {
    outcomes,
    async waitForSuccesses(n, { startedAfter = Date.now(), timeoutMs = 60_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      while (outcomes.filter((o) => o.status === 200 && o.startedAt > startedAfter).length < n) {
        if (Date.now() > deadline)
          throw new Error(
            `fewer than ${n} successful calls within ${timeoutMs} ms; last: ${JSON.stringify(outcomes.slice(-5))}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      running = false;
      await Promise.all(workers);
      grpcClient.close();
      return outcomes;
    },
  };
}

/** The google.rpc.ErrorInfo reason carried in grpc-status-details-bin, or "". */
function reasonFromTrailer(md: grpc.Metadata): string {
  const raw = md.get("grpc-status-details-bin")[0];
  if (!(raw instanceof Buffer)) return "";
  const status = fromBinary(StatusSchema, raw);
  const info = status.details.find((any) => any.typeUrl.endsWith("google.rpc.ErrorInfo"));
  return info === undefined ? "" : fromBinary(ErrorInfoSchema, info.value).reason;
}

/** Counts outcomes by "protocol status reason", for assertion messages. */
export function tally(outcomes: readonly CallOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const k = `${o.protocol} ${o.status}${o.reason ? ` ${o.reason}` : ""}`;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
