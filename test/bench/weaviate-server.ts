/**
 * A Weaviate server for the benchmark whose data outlives the run: the same binary as the test
 * harness (weaviateBinaryPath), but with its data under BENCH_DIR/weaviate and ports chosen once
 * and kept in ports.json, so a later `npm run bench -- --only search` finds the ingested corpus
 * instead of importing it again (Raft remembers its own address, so the ports must not move).
 * WEAVIATE_URL set: that server is used and nothing is started. THREADSIGHT_BENCH_WEAVIATE names
 * another server directory under BENCH_DIR (default "weaviate"), so a long run (the whole-corpora
 * ingest) can keep its own server, data and ports while other parts use the default one.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { weaviateBinaryPath } from "../harness/weaviate.js";
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

type Ports = { http: number; grpc: number; gossip: number; data: number; raft: number; raftRpc: number };

async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const srv = net.createServer();
      await new Promise<void>((resolve, reject) => srv.once("error", reject).listen(0, "127.0.0.1", () => resolve()));
      servers.push(srv);
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

async function portsFor(dir: string): Promise<Ports> {
  const file = path.join(dir, "ports.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Ports;
  const [http, grpc, gossip, data, raft, raftRpc] = (await freePorts(6)) as [number, number, number, number, number, number];
  const ports = { http, grpc, gossip, data, raft, raftRpc };
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`weaviate exited with ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(`${url}/v1/.well-known/ready`, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`weaviate not ready after ${timeoutMs} ms:\n${log()}`);
}

/** Server directory name from THREADSIGHT_BENCH_WEAVIATE (a plain name, no path). */
export function benchWeaviateName(): string {
  const name = process.env.THREADSIGHT_BENCH_WEAVIATE ?? "weaviate";
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`THREADSIGHT_BENCH_WEAVIATE must be letters, digits, "-" or "_", got "${name}"`);
  return name;
}

/** Starts (or adopts) the benchmark's Weaviate; `name` is its directory under BENCH_DIR. */
export async function startBenchWeaviate(name = benchWeaviateName()): Promise<BenchWeaviate> {
  if (process.env.WEAVIATE_URL) {
    const u = new URL(process.env.WEAVIATE_URL);
    return { name, httpUrl: process.env.WEAVIATE_URL, grpcUrl: process.env.WEAVIATE_GRPC_URL ?? `${u.hostname}:50051`, dataDir: undefined, pid: undefined, stop: async () => {} };
  }
  const bin = weaviateBinaryPath();
  if (!existsSync(bin)) throw new Error(`no Weaviate binary at ${bin}; run scripts/install-weaviate.sh or set WEAVIATE_URL`);
  const dir = path.join(BENCH_DIR, name);
  const dataDir = path.join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  const ports = await portsFor(dir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PERSISTENCE_DATA_PATH: dataDir,
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: "true",
    DEFAULT_VECTORIZER_MODULE: "none",
    ENABLE_MODULES: "",
    CLUSTER_HOSTNAME: "bench1",
    CLUSTER_GOSSIP_BIND_PORT: String(ports.gossip),
    CLUSTER_DATA_BIND_PORT: String(ports.data),
    CLUSTER_ADVERTISE_ADDR: "127.0.0.1",
    GRPC_PORT: String(ports.grpc),
    RAFT_PORT: String(ports.raft),
    RAFT_INTERNAL_RPC_PORT: String(ports.raftRpc),
    RAFT_BOOTSTRAP_EXPECT: "1",
    RAFT_JOIN: `bench1:${ports.raft}`,
    DISABLE_TELEMETRY: "true",
    LOG_LEVEL: "warning",
    QUERY_DEFAULTS_LIMIT: "25",
  };
  const child = spawn(bin, ["--host", "127.0.0.1", "--port", String(ports.http), "--scheme", "http"], { env, stdio: ["ignore", "ignore", "pipe"] });
  const orphanGuard = (): void => void child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  child.once("exit", () => process.off("exit", orphanGuard));
  const tail: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    tail.push(c);
    if (tail.length > 50) tail.shift();
  });
  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(httpUrl, child, 120_000, () => tail.join("").split("\n").slice(-20).join("\n"));
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, httpUrl, grpcUrl: `127.0.0.1:${ports.grpc}`, dataDir, pid: child.pid, stop };
}
