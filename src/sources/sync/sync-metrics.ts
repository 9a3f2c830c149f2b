/**
 * Prometheus metrics of live-source polling, per source: polls by result, posts written by
 * outcome, errors by kind, health, and the lag from a post's creation to its being searchable
 * (observed when its batch's write returns). Registered on the server's registry under
 * `serve --sync`, or on one of their own for `threadsight sync`.
 */

import type { Registry } from "prom-client";
import { Counter, Gauge, Histogram } from "prom-client";

/** The counters a sync run updates. */
export interface SyncMetrics {
  polls: Counter<"source" | "kind" | "result">;
  posts: Counter<"source" | "kind" | "outcome">;
  errors: Counter<"source" | "kind" | "error">;
  healthy: Gauge<"source" | "kind">;
  lag: Histogram<"source" | "kind">;
}

/** Creates the sync metrics on `registry`. */
export function createSyncMetrics(registry: Registry): SyncMetrics {
  const registers = [registry];
  return {
    polls: new Counter({
      name: "threadsight_source_polls_total",
      help: "Live-source polls finished, by source, kind and result (ok, error)",
      labelNames: ["source", "kind", "result"],
      registers,
    }),
    posts: new Counter({
      name: "threadsight_source_posts_total",
      help: "Posts written from live sources, by outcome (inserted, updated, unchanged, failed)",
      labelNames: ["source", "kind", "outcome"],
      registers,
    }),
    errors: new Counter({
      name: "threadsight_source_errors_total",
      help: "Failed live-source polls, by error kind (timeout, rate_limited, server_error, ...)",
      labelNames: ["source", "kind", "error"],
      registers,
    }),
    healthy: new Gauge({
      name: "threadsight_source_healthy",
      help: "1 while a live source is healthy, 0 once it has failed too many polls in a row",
      labelNames: ["source", "kind"],
      registers,
    }),
    lag: new Histogram({
      name: "threadsight_source_lag_seconds",
      help: "Seconds from a live post's creation to its being written and searchable",
      labelNames: ["source", "kind"],
      buckets: [1, 5, 10, 20, 30, 45, 60, 90, 120, 300, 600, 1800, 3600],
      registers,
    }),
  };
}
