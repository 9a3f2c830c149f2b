/**
 * Runs one gRPC stream with ghz (Go; built by scripts/install-load-tools.sh) in a child process.
 * ghz finds the methods through the server's reflection service, sends exactly rate x seconds
 * calls (`-n` with `--rps`, bodies round-robin from the data file) and writes a JSON report whose
 * `details` list every call with its start, latency and status, from which the harness cuts
 * intervals and counts calls per key. A count rather than a duration: ghz then reports every
 * call it made, so no call the service counted goes unseen.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallRecord, StreamRun, StreamSpec } from "./streams.js";
import { finishedRun } from "./streams.js";
import { OPERATIONS } from "./workload.js";

/**
 * ghz workers per stream: each waits for its call, so workers bound the calls in flight. Four
 * per req/s lets a stream keep its rate while answers take up to ~4 s, so a slow service shows
 * up as latency rather than as a tool quietly sending less (coordinated omission).
 */
const WORKERS_PER_RPS = 4;
const MAX_WORKERS = 64;

/** GHZ_BIN, else the cache folder install-load-tools.sh builds into, else PATH. */
export function findGhz(): string | undefined {
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  const candidates = [
    process.env.GHZ_BIN,
    path.join(cache, "bin", "ghz"),
    ...(process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "ghz")),
  ];
  return candidates.find((c): c is string => Boolean(c) && existsSync(c as string));
}

/** What one ghz run sends, and where its JSON report goes. */
export interface GhzRun {
  rpc: string;
  key: string;
  /** JSON array of request bodies, sent round-robin. */
  dataFile: string;
  total: number;
  concurrency: number;
  /** Calls per second; absent: as fast as the workers go. */
  rps?: number;
  outFile: string;
  address: string;
}

/** ghz arguments for `run`: one plaintext connection, one CPU for ghz, a JSON report with every call. */
export function ghzArgs(run: GhzRun): string[] {
  return [
    "--insecure",
    "--call",
    run.rpc,
    "--metadata",
    JSON.stringify({ authorization: `Bearer ${run.key}` }),
    "--data-file",
    run.dataFile,
    "--total",
    String(run.total),
    ...(run.rps === undefined ? [] : ["--rps", String(run.rps)]),
    "--concurrency",
    String(run.concurrency),
    "--connections",
    "1",
    "--timeout",
    "30s",
    // Our bodies hold no templates; skipping template processing saves ghz CPU on a shared machine.
    "--disable-template-functions",
    "--disable-template-data",
    "--cpus",
    "1",
    "--format",
    "json",
    "--output",
    run.outFile,
    run.address,
  ];
}

/** The parts of ghz's JSON report the harnesses read. */
export interface GhzReport {
  endReason: string;
  details?: { timestamp: string; latency: number; error: string; status: string }[];
}

/** Sends `stream.rate * seconds` calls to `address` with the ghz binary at `ghz`. */
export async function runGrpcStream(
  ghz: string,
  address: string,
  stream: StreamSpec,
  seconds: number,
  capMs: number,
): Promise<StreamRun> {
  const amount = Math.max(1, Math.round(stream.rate * seconds));
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-ghz-"));
  const dataFile = path.join(dir, "data.json");
  const outFile = path.join(dir, "report.json");
  writeFileSync(dataFile, JSON.stringify(stream.bodies));
  const args = ghzArgs({
    rpc: OPERATIONS[stream.op].rpc,
    key: stream.key.key,
    dataFile,
    total: amount,
    concurrency: Math.max(1, Math.min(MAX_WORKERS, WORKERS_PER_RPS * stream.rate, amount)),
    rps: stream.rate,
    outFile,
    address,
  });
  const startedAt = Date.now();
  try {
    const failure = await new Promise<string | undefined>((resolve) => {
      const child = execFile(ghz, args, { maxBuffer: 1 << 20 }, (err, _stdout, stderr) => {
        clearTimeout(soft);
        clearTimeout(hard);
        process.off("exit", orphanGuard);
        // ghz exits 0 even when calls fail; a non-zero exit means it could not run (or was stopped).
        resolve(err ? `ghz ${stream.id} failed: ${err.message}\n${stderr.slice(-1500)}` : undefined);
      });
      // The time cap: SIGINT makes ghz stop and still write its report (its own --max-duration
      // would override --total, so it cannot be used); SIGKILL if it does not stop.
      const soft = setTimeout(() => child.kill("SIGINT"), capMs);
      const hard = setTimeout(() => child.kill("SIGKILL"), capMs + 30_000);
      // If the load run dies, its ghz children must not keep loading the machine.
      const orphanGuard = (): void => void child.kill("SIGKILL");
      process.once("exit", orphanGuard);
    });
    if (failure !== undefined && !existsSync(outFile)) throw new Error(failure);
    const report = JSON.parse(readFileSync(outFile, "utf8")) as GhzReport;
    const calls: CallRecord[] = (report.details ?? []).map((d) => {
      const ms = d.latency / 1e6;
      // ghz stamps the call's start (RFC 3339 with nanoseconds); the answer came `latency` later.
      return { end: Date.parse(d.timestamp) + ms, ms, status: d.status !== "" ? d.status : `error: ${d.error}` };
    });
    return finishedRun(stream, amount, calls, startedAt, failure !== undefined || report.endReason !== "normal");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
