/**
 * Prometheus metrics for RPCs, labelled by service, method, protocol and result code. A
 * registry per server (not prom-client's global one) so tests can run several servers in one
 * process without metrics bleeding between them.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** The metrics one server records. */
export interface RpcMetrics {
  readonly registry: Registry;
  /** Records one finished call. */
  observe(labels: { service: string; method: string; protocol: string; code: string }, seconds: number): void;
}

/** Creates a registry with process metrics and the RPC counter and latency histogram. */
export function createRpcMetrics(): RpcMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "threadsight_" });
  const labelNames = ["service", "method", "protocol", "code"] as const;
  const calls = new Counter({
    name: "threadsight_rpc_requests_total",
    help: "RPCs handled, by service, method, protocol (rest, connect, grpc, grpc_web) and result code",
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "threadsight_rpc_duration_seconds",
    help: "RPC latency from interceptor entry to result, seconds",
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    observe(labels, seconds) {
      calls.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
