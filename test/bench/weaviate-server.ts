/**
 * A Weaviate server for the benchmark whose data outlives the run: started by the test harness
 * (startWeaviateNode, the one place that knows how to start Weaviate), but with its data under
 * BENCH_DIR/weaviate and ports chosen once and kept in ports.json, so a later `npm run bench -- --only search` finds the ingested corpus
 * instead of importing it again (Raft remembers its own address, so the ports must not move).
 * WEAVIATE_URL set: that server is used and nothing is started. THREADSIGHT_BENCH_WEAVIATE names
 * another server directory under BENCH_DIR (default "weaviate"), so a long run (the whole-corpora
 * ingest) can keep its own server, data and ports while other parts use the default one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { NodePorts } from "../harness/weaviate.js";
import { allocatePorts, startWeaviateNode, weaviateBinaryPath } from "../harness/weaviate.js";
import { BENCH_DIR } from "./results-store.js";

/** A running Weaviate for the benchmark. */
export interface BenchWeaviate {
  /** Server directory name under BENCH_DIR; also prefixes the targets' data directories. */
  name: string;
  httpUrl: string;
  grpcUrl: string;
  dataDir: string | undefined;
  /** The server's process id (undefined for an adopted WEAVIATE_URL server), to read its memory. */
  pid: number | undefined;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s); the data stays. */
  stop(): Promise<void>;
}

/** Raft's node name in every bench server; its data directories remember it, so it must not change. */
const NODE_NAME = "bench1";

/** The server directory's ports: chosen on first start, then read back from ports.json. */
async function portsFor(dir: string): Promise<NodePorts> {
  const file = path.join(dir, "ports.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as NodePorts;
  const ports = await allocatePorts();
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

/** Server directory name from THREADSIGHT_BENCH_WEAVIATE (a plain name, no path). */
export function benchWeaviateName(): string {
  const name = process.env.THREADSIGHT_BENCH_WEAVIATE ?? "weaviate";
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    throw new Error(`THREADSIGHT_BENCH_WEAVIATE must be letters, digits, "-" or "_", got "${name}"`);
  return name;
}

/** Starts (or adopts) the benchmark's Weaviate; `name` is its directory under BENCH_DIR. */
export async function startBenchWeaviate(name = benchWeaviateName()): Promise<BenchWeaviate> {
  if (process.env.WEAVIATE_URL) {
    const u = new URL(process.env.WEAVIATE_URL);
    return {
      name,
      httpUrl: process.env.WEAVIATE_URL,
      grpcUrl: process.env.WEAVIATE_GRPC_URL ?? `${u.hostname}:50051`,
      dataDir: undefined,
      pid: undefined,
      stop: async () => {},
    };
  }
  const bin = weaviateBinaryPath();
  if (!existsSync(bin))
    throw new Error(`no Weaviate binary at ${bin}; run scripts/install-weaviate.sh or set WEAVIATE_URL`);
  const dir = path.join(BENCH_DIR, name);
  const dataDir = path.join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  const node = await startWeaviateNode({
    name: NODE_NAME,
    dataDir,
    ports: await portsFor(dir),
    readyTimeoutMs: 120_000,
    stopTimeoutMs: 10_000,
  });
  return { name, httpUrl: node.httpUrl, grpcUrl: node.grpcUrl, dataDir, pid: node.pid, stop: () => node.stop() };
}
