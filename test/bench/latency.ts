/**
 * Runs a list of calls at a fixed concurrency and reports latency percentiles and throughput.
 * Bounded twice: by the number of calls and by a wall-clock cap, whichever comes first. A failed
 * call is counted, not timed (a fast error must not pass for a fast answer); a run where more
 * than a tenth of the calls fail is an error.
 */
import type { SearchCall } from "./search-clients.js";
import { msSince, percentile } from "./stats.js";

/** One measured run. */
export interface RunStats {
  calls: number;
  p50: number;
  p95: number;
  p99: number;
  /** Completed calls per second of wall time. */
  rps: number;
  /** True when the time cap cut the run short. */
  capped: boolean;
  /** Calls that failed (left out of the latencies) and the first failure's message. */
  errors: number;
  firstError?: string;
}

/** Issues `queries` through `call` with `concurrency` callers; per-call latency in ms. */
export async function runCalls(
  call: SearchCall,
  queries: readonly string[],
  concurrency: number,
  capMs: number,
): Promise<RunStats> {
  const latencies: number[] = [];
  let next = 0;
  let capped = false;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = process.hrtime.bigint();
  const deadline = Date.now() + capMs;
  const worker = async (): Promise<void> => {
    while (next < queries.length) {
      if (Date.now() > deadline) {
        capped = true;
        return;
      }
      const q = queries[next++]!;
      const s = process.hrtime.bigint();
      try {
        await call(q);
        latencies.push(msSince(s));
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const wall = msSince(t0);
  if (errors > 0.1 * (errors + latencies.length))
    throw new Error(`${errors} of ${errors + latencies.length} calls failed, e.g. ${firstError}`);
  return {
    calls: latencies.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    rps: latencies.length / (wall / 1000),
    capped,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
  };
}
