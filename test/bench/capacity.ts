/**
 * Capacity: the most requests per second each operation sustains on this machine, over gRPC.
 * Closed-loop clients (each sends its next call when the previous answer arrives) at rising
 * concurrency 1, 2, 4, ...; every step runs for a fixed time; the sweep stops once throughput
 * grows by less than {@link FLAT_GAIN} over the previous step or the p99 passes
 * {@link P99_BOUND_MS}. The capacity of a sweep is the best throughput among steps whose p99
 * stayed within the bound. Sweeps repeat (rounds, operations interleaved) and the median is
 * reported.
 *
 * Queries cycle through a fixed set of real forum questions, cached by the service after a
 * warm-up pass: this measures serving, not the query embedder (whose cost the latency section
 * shows). Clients run in this process, the service in its own; both share the 2 cores, so the
 * figures are a floor for a service with the machine to itself.
 */
import type { BackendTarget } from "./backends.js";
import type { Operation, SearchCall } from "./search-clients.js";
import { grpcCall } from "./search-clients.js";
import { loadBenchQueries } from "./search-queries.js";
import { spawnService } from "./service-process.js";
import { median, msSince, percentile } from "./stats.js";

/** A step's p99 above this is not sustainable. */
export const P99_BOUND_MS = 1000;
/** Throughput gain below this (relative) ends the sweep. */
const FLAT_GAIN = 0.05;
const LEVELS = [1, 2, 4, 8, 16, 32, 64] as const;
const OPERATIONS: readonly Operation[] = ["semantic", "vector", "trends", "leads"];
const QUERY_SET = 40;

/** One step of one sweep. */
export interface CapacityStep {
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  firstError?: string;
}

/** One operation: every sweep's steps and the medians. */
export interface CapacityRow {
  operation: Operation;
  sweeps: CapacityStep[][];
  /** Per sweep: best rps with p99 within the bound, and the concurrency it came at. */
  capacities: number[];
  atConcurrency: number[];
  capacity: number;
}

/** The capacity section for one backend. */
export interface CapacityResult {
  backend: string;
  posts: number;
  stepSeconds: number;
  rounds: number;
  /** Results one FindLeads call (the first query, default min_score) returned: 0 means the index holds no leads above the bar. */
  leadsFound?: number;
  rows: CapacityRow[];
}

async function closedLoop(
  call: SearchCall,
  queries: readonly string[],
  concurrency: number,
  ms: number,
): Promise<CapacityStep> {
  const lat: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + ms;
  const client = async (): Promise<void> => {
    while (Date.now() < end) {
      const q = queries[next++ % queries.length]!;
      const t = process.hrtime.bigint();
      try {
        await call(q);
        lat.push(msSince(t));
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => client()));
  const wall = msSince(t0) / 1000;
  return {
    concurrency,
    rps: lat.length / wall,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    errors,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

async function sweep(call: SearchCall, queries: readonly string[], stepMs: number): Promise<CapacityStep[]> {
  const steps: CapacityStep[] = [];
  for (const c of LEVELS) {
    const s = await closedLoop(call, queries, c, stepMs);
    steps.push(s);
    const prev = steps.at(-2);
    if (s.p99 > P99_BOUND_MS || s.errors > 0 || (prev !== undefined && s.rps < prev.rps * (1 + FLAT_GAIN))) break;
  }
  return steps;
}

/** Measures capacity per operation against `target`. */
export async function benchCapacity(
  target: BackendTarget,
  opts: { rounds: number; stepSeconds: number },
  log: (s: string) => void,
): Promise<CapacityResult> {
  const queries = loadBenchQueries().slice(0, QUERY_SET);
  const svc = await spawnService(target.dataDir, target.env);
  const clients = new Map(OPERATIONS.map((op) => [op, grpcCall(svc.address, svc.key, op)]));
  const sweeps = new Map<Operation, CapacityStep[][]>(OPERATIONS.map((op) => [op, []]));
  let leadsFound = 0;
  try {
    for (const [, c] of clients) for (const q of queries) await c.call(q);
    const res = await fetch(`${svc.url}/api/v1/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${svc.key}` },
      body: JSON.stringify({ query: queries[0], limit: 10 }),
    });
    const found = ((await res.json()) as { data?: { results?: unknown[] } }).data?.results;
    leadsFound = Array.isArray(found) ? found.length : 0;
    for (let round = 0; round < opts.rounds; round++) {
      for (const op of OPERATIONS) {
        const steps = await sweep(clients.get(op)!.call, queries, opts.stepSeconds * 1000);
        sweeps.get(op)!.push(steps);
        log(
          `capacity ${target.backend} r${round + 1} ${op}: ${steps.map((s) => `c${s.concurrency} ${s.rps.toFixed(1)}/s p99 ${s.p99.toFixed(0)}${s.errors > 0 ? ` (${s.errors} errors: ${s.firstError})` : ""}`).join(", ")}`,
        );
      }
    }
  } finally {
    for (const c of clients.values()) c.close();
    await svc.stop();
  }
  const rows = OPERATIONS.map((op): CapacityRow => {
    const all = sweeps.get(op)!;
    const best = all.map((steps) =>
      steps
        .filter((s) => s.p99 <= P99_BOUND_MS && s.errors === 0)
        .reduce<CapacityStep | undefined>((b, s) => (b === undefined || s.rps > b.rps ? s : b), undefined),
    );
    const capacities = best.map((b) => b?.rps ?? 0);
    return {
      operation: op,
      sweeps: all,
      capacities,
      atConcurrency: best.map((b) => b?.concurrency ?? 0),
      capacity: median(capacities),
    };
  });
  return {
    backend: target.backend,
    posts: svc.posts,
    stepSeconds: opts.stepSeconds,
    rounds: opts.rounds,
    leadsFound,
    rows,
  };
}
