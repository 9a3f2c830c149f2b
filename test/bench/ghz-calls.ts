/**
 * One call after another through ghz (Go, grpc-go; scripts/install-load-tools.sh builds it), for
 * the benchmarks that compare what the service adds with what a Node gRPC client adds: ghz sends
 * the bodies in order on one connection, one call in flight (bodies go round-robin from the data
 * file, so with one worker the n-th call carries the n-th body), and reports each call's latency.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { GhzReport } from "../load/grpc-load.js";
import { ghzArgs } from "../load/grpc-load.js";

const run = promisify(execFile);

/** Latency of each call, ms, in the order of `bodies`; throws if any call was not OK. */
export async function ghzSequential(
  ghz: string,
  address: string,
  key: string,
  rpc: string,
  bodies: readonly object[],
): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-ghz-seq-"));
  try {
    const dataFile = path.join(dir, "data.json");
    const outFile = path.join(dir, "report.json");
    writeFileSync(dataFile, JSON.stringify(bodies));
    await run(ghz, ghzArgs({ rpc, key, dataFile, total: bodies.length, concurrency: 1, outFile, address }), {
      timeout: 600_000,
    });
    const details = (JSON.parse(readFileSync(outFile, "utf8")) as GhzReport).details ?? [];
    const failed = details.filter((d) => d.status !== "OK");
    if (details.length !== bodies.length || failed.length > 0) {
      throw new Error(
        `ghz ${rpc}: ${details.length} of ${bodies.length} calls reported, ${failed.length} not OK${failed[0] ? ` (${failed[0].status} ${failed[0].error})` : ""}`,
      );
    }
    return details.map((d) => d.latency / 1e6);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
