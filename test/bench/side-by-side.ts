/**
 * This tree's service and another commit's, side by side over the same kept data: every fresh
 * query goes to both over gRPC, in alternating order (whichever is second finds the engine's
 * caches warm for that query), and each operation's p50 is printed for both. For a change's
 * end-to-end effect: two separate benchmark runs differ by the machine's hour as much as by a
 * change of a few milliseconds; one interleaved run does not.
 *
 *   node --import tsx test/bench/side-by-side.ts <git revision> [lancedb|weaviate] [operations] [queries per operation]
 *
 * e.g. `... side-by-side.ts HEAD~1 weaviate leads,semantic 120`. The other commit is checked out
 * into a temporary git worktree that borrows this tree's node_modules (so it must build with the
 * same lockfile); each side is its own test/bench/serve-child.ts process. Data: the kept
 * benchmark stores of backends.ts (THREADSIGHT_BENCH_LANCEDB / THREADSIGHT_BENCH_WEAVIATE pick
 * the insights copies, whose posts carry lead fields, for `leads`). Both services only read
 * it; on the embedded index they share the directory.
 */

import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import type { Backend } from "./backends.js";
import { targetFor } from "./backends.js";
import type { Operation } from "./search-clients.js";
import { grpcCall } from "./search-clients.js";
import { loadBenchQueries } from "./search-queries.js";
import { median, msSince } from "./stats.js";
import { startBenchWeaviate } from "./weaviate-server.js";

const OPERATIONS: readonly Operation[] = ["semantic", "vector", "trends", "leads"];

const [revision, backendArg = "weaviate", opsArg = "semantic,leads", perOpArg = "120"] = process.argv.slice(2);
if (revision === undefined) {
  console.error("usage: side-by-side.ts <git revision> [lancedb|weaviate] [operations] [queries per operation]");
  process.exit(2);
}
const backend = backendArg as Backend;
if (backend !== "lancedb" && backend !== "weaviate")
  throw new Error(`backend must be lancedb or weaviate, got ${backendArg}`);
const ops = opsArg.split(",") as Operation[];
for (const op of ops)
  if (!OPERATIONS.includes(op)) throw new Error(`unknown operation ${op} (one of ${OPERATIONS.join(", ")})`);
const perOp = Number(perOpArg);

/** One side: a service process and its gRPC callers. */
interface Side {
  name: string;
  child: ChildProcess;
  calls: Map<Operation, ReturnType<typeof grpcCall>>;
}

function serve(name: string, root: string, dataDir: string, env: Record<string, string>): Promise<Side> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(root, "test/bench/serve-child.ts"), JSON.stringify({ dataDir, env })],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
  );
  process.once("exit", () => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", (line: Buffer) => {
      const info = JSON.parse(String(line)) as { address: string; key: string };
      resolve({ name, child, calls: new Map(ops.map((op) => [op, grpcCall(info.address, info.key, op)])) });
    });
    child.once("exit", (code) => reject(new Error(`${name} service exited with ${code} before it was up`)));
  });
}

const worktree = mkdtempSync(path.join(os.tmpdir(), "threadsight-side-"));
execFileSync("git", ["worktree", "add", "--detach", worktree, revision], { cwd: PACKAGE_ROOT, stdio: "ignore" });
symlinkSync(path.join(PACKAGE_ROOT, "node_modules"), path.join(worktree, "node_modules"));
const weaviate = backend === "weaviate" ? await startBenchWeaviate() : undefined;
const sides: Side[] = [];
try {
  const target = targetFor(backend, "full", weaviate);
  sides.push(
    await serve("this tree", PACKAGE_ROOT, target.dataDir, target.env),
    await serve(revision, worktree, target.dataDir, target.env),
  );
  const queries = loadBenchQueries();
  let next = 0;
  const fresh = (): string => queries[next++ % queries.length]!;
  // Warm-up: each side's first calls open files, connections and JIT paths.
  for (const side of sides)
    for (const op of ops) for (let i = 0; i < 5; i++) await side.calls.get(op)!.call(`${fresh()} (warm-up)`);
  const latencies = new Map(sides.map((s) => [s.name, new Map(ops.map((op) => [op, [] as number[]]))]));
  for (const op of ops) {
    for (let i = 0; i < perOp; i++) {
      const query = fresh();
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        const t0 = process.hrtime.bigint();
        await side.calls.get(op)!.call(query);
        latencies.get(side.name)!.get(op)!.push(msSince(t0));
      }
    }
  }
  console.log(
    `${backend}, ${perOp} fresh queries per operation, each sent to both sides in alternating order (gRPC, p50 ms):`,
  );
  for (const op of ops) {
    const [a, b] = sides.map((s) => median(latencies.get(s.name)!.get(op)!));
    console.log(`  ${op}: ${revision} ${b!.toFixed(1)} -> this tree ${a!.toFixed(1)} (${(a! - b!).toFixed(1)} ms)`);
  }
} finally {
  for (const side of sides) {
    for (const c of side.calls.values()) c.close();
    side.child.kill("SIGTERM");
  }
  await Promise.all(
    sides.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once("exit", r)))),
  );
  await weaviate?.stop();
  execFileSync("git", ["worktree", "remove", "--force", worktree], { cwd: PACKAGE_ROOT, stdio: "ignore" });
  rmSync(worktree, { recursive: true, force: true });
}
