/**
 * The performance sections of docs/BENCHMARKS.md: the stage profile, protocol overhead, our
 * overhead over the engine floor and capacity. Rendered only from stored results (report.ts
 * assembles the document).
 */
import { table } from "../eval/format.js";
import type { CapacityResult } from "./capacity.js";
import { P99_BOUND_MS } from "./capacity.js";
import type { FloorResult } from "./floor.js";
import { FLOOR_GOAL } from "./floor.js";
import { measuredWhen } from "./machine.js";
import type { ProtocolResult } from "./protocol.js";
import { REST_GOAL } from "./protocol.js";
import type { StoredSection } from "./results-store.js";
import type { ProfileResult } from "./search-profile.js";
import { count, fixed } from "./stats.js";

const met = (ok: boolean): string => (ok ? "met" : "**not met**");
const when = (s: StoredSection): string => measuredWhen(s.machine, s.durationS);

export const PROFILE_TEXT = [
  "Method: test/bench/search-profile.ts times each stage of an embedded-index search alone on fresh queries, then the",
  "whole use case and the handler; the quality line compares the fused top 10 with the exact-vector top 10.",
  "Goal: none (it explains the floor below). How it was reached: [decision 0010](decisions/0010-serving-cost-over-the-engine-floor.md).",
];

export function profileSection(s: StoredSection<ProfileResult>): string {
  const d = s.data;
  const parts = d.rows.map((r) =>
    [
      `**${r.method}** (${r.queries} fresh queries)`,
      "",
      table(
        ["stage", "median ms"],
        r.stages.map((x) => [x.name, fixed(x.ms, 2)]),
      ),
      "",
    ].join("\n"),
  );
  return [
    `**${d.backend}**, ${count(d.posts)} posts (${when(s)})`,
    "",
    ...parts,
    `Fused top 10 agreeing with the exact-vector top 10: ${fixed(100 * d.hybridTop10Exact.now)}% as served, ${fixed(100 * d.hybridTop10Exact.before)}% with the window re-ranked exactly.`,
  ].join("\n");
}

export const PROTOCOL_TEXT = [
  "Method: test/bench/protocol.ts sends one cached query over REST, Connect-JSON, Connect-binary and gRPC in interleaved",
  "rounds; medians of per-round latency and of the ratio to gRPC in the same round.",
  `Goal: REST within ${REST_GOAL}x of gRPC. How it was reached: [decision 0010](decisions/0010-serving-cost-over-the-engine-floor.md).`,
];

export function protocolSection(s: StoredSection<ProtocolResult>): string {
  const d = s.data;
  const rows = d.rows.map((r) => [
    r.method,
    r.protocol,
    fixed(r.p50, 2),
    `${fixed(r.ratio, 3)}x`,
    r.ratios.map((x) => fixed(x, 2)).join(", "),
    r.protocol === "rest" ? `REST <= ${REST_GOAL}x gRPC: ${met(r.ratio <= REST_GOAL)}` : "",
  ]);
  return [
    `**${d.backend}**, ${count(d.posts)} posts, ${d.rounds} rounds of ${d.callsPerRound} calls per protocol, query "${d.query}" (${when(s)})`,
    "",
    table(["method", "protocol", "median latency ms", "ratio to gRPC (median)", "per-round ratios", "goal"], rows),
  ].join("\n");
}

export const FLOOR_TEXT = [
  "Method: test/bench/floor.ts divides fresh queries' end-to-end gRPC latency by the floor (query embedding + the raw",
  "engine queries with the service's parameters, back to back in alternating order); median of the round ratios.",
  "The last columns are informational: the bare gRPC round trip put in the floor, and the same ratio with ghz (grpc-go).",
  `Goal: at most ${FLOOR_GOAL}x. How it was reached: [decision 0010](decisions/0010-serving-cost-over-the-engine-floor.md).`,
];

export function floorSection(s: StoredSection<FloorResult>): string {
  const d = s.data;
  const rows = d.rows.map((r) => [
    r.method,
    `${r.rounds} x ${r.queriesPerRound}`,
    fixed(r.endToEnd),
    fixed(r.embed),
    fixed(r.engine),
    `${fixed(r.ratio, 2)}x`,
    r.ratios.map((x) => fixed(x, 2)).join(", "),
    `<= ${FLOOR_GOAL}x: ${met(r.ratio <= FLOOR_GOAL)}`,
    r.roundTrip === undefined ? "-" : fixed(r.roundTrip),
    r.ratioWithRoundTrip === undefined ? "-" : `${fixed(r.ratioWithRoundTrip, 2)}x`,
    r.goEndToEnd === undefined ? "-" : fixed(r.goEndToEnd),
    r.goRatio === undefined ? "-" : `${fixed(r.goRatio, 2)}x (${r.goRatios!.map((x) => fixed(x, 2)).join(", ")})`,
  ]);
  return [
    `**${d.backend}**, ${count(d.posts)} posts (${when(s)})`,
    "",
    table(
      [
        "method",
        "rounds x queries",
        "end-to-end ms (median)",
        "query embedding ms",
        "raw engine ms",
        "ratio (median of rounds)",
        "per-round ratios",
        "goal",
        "bare gRPC round trip ms",
        "ratio with the round trip in the floor",
        "end-to-end ms, Go client (ghz)",
        "ratio, Go client (per round)",
      ],
      rows,
    ),
  ].join("\n");
}

export const CAPACITY_TEXT = [
  "Method: test/bench/capacity.ts raises closed-loop gRPC clients (1, 2, 4, ...) until throughput grows by under 5% or",
  `p99 exceeds ${P99_BOUND_MS} ms; capacity is the best throughput within that bound with no errors, over cached real`,
  "queries on the insights copies (clients share the 2 cores, so these are lower bounds); the median of repeated sweeps.",
  "Goal: none. How it was reached: [decision 0010](decisions/0010-serving-cost-over-the-engine-floor.md).",
];

export function capacitySection(s: StoredSection<CapacityResult>): string {
  const d = s.data;
  const rows = d.rows.map((r) => [
    r.operation,
    fixed(r.capacity),
    r.capacities.map((x) => fixed(x)).join(", "),
    r.atConcurrency.join(", "),
    r.sweeps
      .map((sw) => sw.map((x) => `c${x.concurrency}: ${fixed(x.rps)}/s p99 ${fixed(x.p99, 0)}`).join("; "))
      .join(" \\| "),
  ]);
  return [
    `**${d.backend}**, ${count(d.posts)} posts, ${d.rounds} sweeps, ${d.stepSeconds} s per step (${when(s)})`,
    "",
    table(["operation", "capacity req/s (median)", "per sweep", "at concurrency", "steps (per sweep)"], rows),
    "",
    d.leadsFound === undefined
      ? ""
      : d.leadsFound === 0
        ? "FindLeads found no lead for the first query (the index holds no post the ingest-time classifier marked as a lead at the default min_score), so its row measures the filtered search that finds nothing, not the ranking of leads."
        : `FindLeads returned ${d.leadsFound} leads for the first query.`,
  ].join("\n");
}
