/**
 * Runs a set of streams concurrently, each with its own tool (autocannon in this process for
 * REST, a ghz child per gRPC stream), for the same number of seconds. Every phase is bounded:
 * each tool gets a time cap (phaseCapMs) and reports what it got by then.
 */
import { runGrpcStream } from "./grpc-load.js";
import { runRestStream } from "./rest-load.js";
import type { StreamRun, StreamSpec } from "./streams.js";

/** Where the phase sends its calls. */
export interface Target {
  /** http://127.0.0.1:PORT */
  url: string;
  /** 127.0.0.1:PORT */
  address: string;
  /** Path of the ghz binary. */
  ghz: string;
}

/**
 * The time cap of a phase of `seconds`, ms. Generous (3x plus two minutes): a capped REST run
 * drops its calls in flight, which the service may already have counted, so the cap is a
 * backstop against a wedged service, not a way to trim a slow run.
 */
export function phaseCapMs(seconds: number): number {
  return seconds * 3000 + 120_000;
}

/** Runs `streams` at their rates for `seconds`; resolves when every tool has finished. */
export function runPhase(target: Target, streams: readonly StreamSpec[], seconds: number): Promise<StreamRun[]> {
  const cap = phaseCapMs(seconds);
  return Promise.all(
    streams.map((s) =>
      s.protocol === "rest"
        ? runRestStream(target.url, s, seconds, cap)
        : runGrpcStream(target.ghz, target.address, s, seconds, cap),
    ),
  );
}
