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
  "test/bench/search-profile.ts, embedded index only, in the benchmark process (no transport): each stage of a search timed",
  "alone on fresh queries (medians), then the whole use case (SearchCore, stages overlapped as served: the keyword window",
  'runs while the query is embedded) and the handler (plus the response message). The "re-ranked" row times the vector',
  "window with an exact re-rank of its rows (what it costs while rows are outside the vector index). The quality check",
  "compares the fused top 10 with the top 10 fused from exact (brute-force) vector scores.",
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
  "test/bench/protocol.ts: one query, cached by the service after its first call, sent over REST (JSON through the",
  "gateway, fetch/undici keep-alive), Connect-JSON and Connect-binary (@connectrpc/connect-node, HTTP/1.1) and gRPC",
  "(@grpc/grpc-js, HTTP/2). Rounds interleave the protocols (order rotating); each round gives each protocol its median",
  "latency and a ratio to gRPC's median in the same round; the table shows medians over rounds.",
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
  "test/bench/floor.ts: for fresh queries (cold query cache), end-to-end gRPC latency divided by the floor = query",
  "embedding time + the raw engine queries with the service's parameters (test/bench/engine-floor.ts: LanceDB through the",
  "same query builders as the adapter, keyword and vector windows in parallel then the page's rows; Weaviate one `hybrid`",
  "query returning the page with its properties, as the adapter asks since 2026-11-23 (before: a 200-candidate window, then",
  "the page's objects); VectorSearch one nearest-neighbour query returning the page), issued from the benchmark",
  "process with an identical embedder, back to back with the service call, in alternating order (whichever runs second finds the engine's caches warm for that query). Each query's ratio is end-to-end / (embedding +",
  "engine); a round's ratio is the median over its queries; reported: the median of the round ratios (the millisecond",
  "columns are medians over all queries). Below 1 is possible: the service embeds the query while its keyword window runs.",
  "Beside each query a gRPC Health/Check on the same kind of client times the bare round trip (HTTP/2 and grpc-js both ways",
  "and the service's router, no auth, limits or engine), which every call pays and the floor as the goal defines it leaves",
  "out; the next ratio column puts it in the floor too (informational; the goal reads the first ratio).",
  "The last two columns send other fresh queries of each round through ghz (Go, grpc-go), one at a time, the floor of",
  "half of them taken before that run and of the other half after it: the same ratio with a client that costs less per",
  "call than grpc-js (informational: how much of the distance to the floor is the Node client).",
  "What the ratio cannot show: an engine-side saving shrinks the floor and the end-to-end time alike, so with the per-call",
  "cost above the floor unchanged the ratio rises. Weaviate's SemanticSearch met the goal (1.20x: 29.2 ms over a floor of",
  "23.3) until that change made its hybrid cheaper; the run below has 23.3 ms over 16.3, the same ~7 ms above the floor.",
  "How much of that round trip is ours (test/bench/transport-round-trip.ts, 2026-11-23, the Intel machine, two runs of",
  "2,800 interleaved raw-frame Health/Check calls each): the service 1.015 and 0.863 ms, a minimal Fastify + Connect server",
  "answering the same Health service in its own process (no hooks, interceptors or one-port routing) 0.904 and 0.787 ms:",
  "the service's own layers add ~0.1 ms; the rest is Node's HTTP/2 and Connect, which every Connect-ES service pays, and",
  "it is most of what separates VectorSearch (a floor of ~10 ms) from 1.3x: with the round trip in the floor, 1.11x.",
  "Below that, Connect itself (test/bench/http2-server-cost.ts, 2026-11-24, the Intel machine, two runs of 3,000",
  "interleaved raw-frame Health/Check calls per server, each server a minimal one in its own process): node:http2 alone,",
  "writing the answer's frames by hand, 0.52 and 0.55 ms a round trip at 0.22 ms of server CPU per call; Connect-node's",
  "adapter on that same server 1.06 and 1.12 ms at 0.80 and 1.03 ms of CPU; Fastify + Connect 1.10 and 1.14 ms at 0.95",
  "ms. A CPU profile of the Connect server puts the difference in its per-call machinery (an async-iterable pipeline for",
  "a unary call, linked AbortControllers and the DOMException each abort() builds, header conversion, garbage",
  "collection). The design serves gRPC through Connect, so that cost stays in every call.",
  "A re-run of this part on the Intel machine (2026-11-24 03:35 UTC, LanceDB, 7 x 20 queries; not tabled, as the other",
  "sections here are the AMD runs): SemanticSearch 1.27x (met), VectorSearch 1.37x (**not met**; rounds 1.31-1.41), its",
  "engine slower there (raw vector query 11.5 ms against 7.4 in the AMD run of 2026-11-23); with the Go client 1.13x and 1.30x.",
  "Two more on that machine at lower load (2026-11-24 06:46 UTC, LanceDB; 5 x 20 and 7 x 20 queries): SemanticSearch",
  "1.21x and 1.20x (met), VectorSearch 1.33x and **1.34x** (not met; rounds 1.25-1.47), 12.3 ms end to end over an",
  "embedding of 2.6 ms and a raw query of 6.3 ms, the bare gRPC round trip 1.8 ms; with the Go client 1.23x and 1.18x.",
  "Back on the AMD machine (2026-11-24 21:37 UTC, the LanceDB table until 2026-11-27, and a run at 21:33 UTC",
  "just after the kept index's ingest, at load 2.3): SemanticSearch 1.27x and 1.23x (met), VectorSearch 1.46x and 1.41x",
  "(**not met**), 12.8 and 12.5 ms end to end over an embedding of 2.4-2.5 ms and a raw query of 6.0-6.4 ms; the bare",
  "gRPC round trip there is 2.4 ms (1.8 on the Intel machine); with the Go client 1.35x and 1.27x.",
  "On an Intel Xeon @ 2.50GHz (2026-11-27; the tables below, and a run at 16:30-16:35 UTC at load 1.6-2.4): LanceDB",
  "SemanticSearch 1.16x and 1.26x (met), VectorSearch 1.37x and 1.39x; Weaviate SemanticSearch 1.31x and 1.34x,",
  "VectorSearch 1.44x and 1.49x (none of these three met); with the Go client VectorSearch 1.24x and 1.28x on LanceDB",
  "(met), 1.33x and 1.36x on Weaviate. Where the time above the floor goes there, from inside the service",
  "(test/bench/call-overhead.ts, one cached query, 400 calls through grpc-js): a LanceDB VectorSearch spent 3.3 ms",
  "outside its handler, of which authentication, both limiters, the usage write and metrics took ~0.35 ms (the usage",
  "write alone 0.12), Connect's encoding and its wait for the body's write before the trailers ~0.7 ms, and grpc-js",
  "with the wire both ways ~1.9 ms (call to stream arrival 0.74, the request's DATA frame 0.52, trailers to the",
  "client's end 0.68); Weaviate's, 2.8 ms the same way. The adapters add little to the engine: the same fresh queries",
  "through SearchIndex and through the raw queries above, in one process (test/bench/adapter-vs-engine.ts, 150",
  "queries, alternating): LanceDB hybrid page 14.64 against 14.43 ms, vector page 6.46 against 6.08 (the adapter reads",
  "the vector index statistics first, which the service overlaps with the query's embedding); Weaviate 11.10 against",
  "10.91 and 3.93 against 3.81. So what keeps VectorSearch over 1.3x is the per-call transport (Connect-node on Node's",
  "HTTP/2 and the grpc-js client), which the design serves every gRPC call through: the bare gRPC round trip alone is",
  "0.26x (LanceDB) and 0.29x (Weaviate) of the VectorSearch floors in the tables below, and with it in the floor the",
  "ratios are 1.10x and 1.11x.",
  "Again on that machine (2026-11-28 12:02 UTC, load 0.6, LanceDB, 5 x 20 queries, not tabled): VectorSearch rounds",
  "1.08 (the first, the service's index still cold), 1.39, 1.41, 1.36 and 1.32x, median 1.36x (**not met**). Two",
  "measurements from that day split the distance. In one process, the VectorSearch handler (the service's embedder,",
  "SearchCore, the response built; test/bench/handler-vs-floor.ts, 200 fresh queries, alternating) took 11.09 and",
  "10.73 ms against floors of 10.59 and 10.14 ms (embedding 3.4, engine 6.6-7.1): the handler is 0.5-0.6 ms over the",
  "floor, so the rest of the ~4.5 ms end to end adds is the call's way in and out. And that way costs more after a",
  "pause (test/bench/round-trip-gap.ts: grpc-js Health/Check to the minimal Fastify + Connect server, 300 calls per",
  "kind, interleaved): 1.47 ms after a setImmediate, 1.67 ms back to back in the interleaving, 1.82 ms after a 5 ms",
  "sleep, 2.34 ms after 20 ms, 2.06 ms after 5 ms of busy work in the client; two low-priority busy loops keeping both",
  "cores from idling did not remove it, nor did turning grpc-js retries and channelz off (under 0.01 ms). A fresh",
  "query's call reaches the service after the client has waited on the previous one's engine work, as the floor part",
  "times it, so it pays the slow end; encoding (0.11 ms) and decoding (0.06 ms) a 2.2 KB answer are small (the same",
  "script, a third run: handler 11.28 against a floor of 10.96 ms).",
  "On the AMD machine again (2026-11-29 06:30 UTC, load 0.0, LanceDB over the 92,912 posts as `threadsight ingest`",
  "wrote them, 5 x 20 queries, `--no-write`, not tabled): SemanticSearch 1.24x (met), VectorSearch 1.43x (**not",
  "met**; rounds 1.37-1.48), 18.1 ms end to end over an embedding of 3.2 ms and a raw query of 9.5 ms, the bare gRPC",
  "round trip 3.4 ms, 1.11x with it in the floor; with the Go client 1.18x and 1.39x.",
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
  `test/bench/capacity.ts: closed-loop gRPC clients (each sends its next call when the answer arrives) at concurrency 1, 2,`,
  `4, ... for a fixed time per step, until throughput grows by less than 5% or p99 exceeds ${P99_BOUND_MS} ms; a sweep's`,
  "capacity is its best throughput with p99 within the bound and no errors. Queries cycle through 40 real questions,",
  "cached after a warm-up pass (serving is measured, not the query embedder). Clients and service share the 2 cores, so",
  "these are lower bounds for a service with the machine to itself. Sweeps repeat, operations interleaved; the median is shown.",
  "Run over the insights copies of the kept corpora (`THREADSIGHT_BENCH_LANCEDB=insights-lancedb-full`,",
  "`THREADSIGHT_BENCH_WEAVIATE=weaviate-insights`), whose posts carry topics and lead fields, so ListTrends ranks real",
  "trends and FindLeads ranks real leads.",
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
