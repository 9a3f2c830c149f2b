/**
 * Runs one REST stream with autocannon (in this process; the service has its own). It asks for
 * an exact number of requests (rate x seconds) rather than a duration: autocannon then waits for
 * every answer before it ends, whereas a duration run drops the calls in flight at the end, which
 * the service would have counted but the tool would not, and the usage reconciliation could not
 * be exact.
 */
import autocannon from "autocannon";
import type { CallRecord, StreamRun, StreamSpec } from "./streams.js";
import { finishedRun } from "./streams.js";
import { OPERATIONS } from "./workload.js";

/** Most connections per stream: enough to keep the rate while answers take up to ~1 s. */
const MAX_CONNECTIONS = 16;
/** Per-request timeout, s (a timeout is an unexpected error). */
const TIMEOUT_S = 30;

/** Sends `stream.rate * seconds` requests to `baseUrl`; stops early (capped) after `capMs`. */
export async function runRestStream(
  baseUrl: string,
  stream: StreamSpec,
  seconds: number,
  capMs: number,
): Promise<StreamRun> {
  const path = OPERATIONS[stream.op].path;
  const headers = { "content-type": "application/json", authorization: `Bearer ${stream.key.key}` };
  const amount = Math.max(1, Math.round(stream.rate * seconds));
  // Each connection gets a whole share of the rate; a connection with share 0 would be unpaced.
  const connections = Math.max(1, Math.min(MAX_CONNECTIONS, stream.rate, amount));
  const calls: CallRecord[] = [];
  const startedAt = Date.now();
  const instance = autocannon({
    url: baseUrl,
    connections,
    pipelining: 1,
    overallRate: stream.rate,
    amount,
    timeout: TIMEOUT_S,
    requests: stream.bodies.map((b) => ({ method: "POST", path, headers, body: JSON.stringify(b) })),
  });
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    calls.push({ end: Date.now(), ms: responseTime, status: String(statusCode) });
  });
  instance.on("reqError", (err) => {
    calls.push({ end: Date.now(), ms: 0, status: `error: ${err.message}` });
  });
  let capped = false;
  const cap = setTimeout(() => {
    capped = true;
    instance.stop();
  }, capMs);
  try {
    await instance;
  } finally {
    clearTimeout(cap);
  }
  return finishedRun(stream, amount, calls, startedAt, capped);
}
