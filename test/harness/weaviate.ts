/**
 * Starts a real Weaviate server for a test suite: the binary built by scripts/install-weaviate.sh
 * (or WEAVIATE_BIN), on free loopback ports, with a throw-away data directory. When WEAVIATE_URL
 * is set, that server is used instead and nothing is started.
 *
 * Every node gets its own ports and directory from `startNode`, so a multi-node cluster is a
 * loop over it with RAFT_JOIN naming the first nodes; only `nodes: 1` is wired up today.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { missingBackend } from "./backend-policy.js";

/** The Weaviate version the project tests against (scripts/install-weaviate.sh builds it). */
export const WEAVIATE_VERSION = "v1.35.2";

/** A running (or externally provided) Weaviate. */
export interface WeaviateServer {
  httpUrl: string;
  /** host:port of the gRPC listener. */
  grpcUrl: string;
  httpPort: number;
  grpcPort: number;
  /** Stops the server and deletes its data; a no-op for an external WEAVIATE_URL. */
  stop(): Promise<void>;
}

/** Options for {@link startWeaviate}. */
export interface StartWeaviateOptions {
  /** Cluster size; only 1 is supported so far. */
  nodes?: number;
  /** How long to wait for /v1/.well-known/ready, ms. */
  readyTimeoutMs?: number;
}

/** Where the binary is looked for: WEAVIATE_BIN, else the install script's cache path. */
export function weaviateBinaryPath(): string {
  const fromEnv = process.env.WEAVIATE_BIN;
  if (fromEnv) return fromEnv;
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  return path.join(cache, `weaviate-${WEAVIATE_VERSION}`, "weaviate-server");
}

/**
 * Returns a skip reason when no Weaviate can be had (no WEAVIATE_URL and no binary), or
 * undefined when the suite can run. Throws when Weaviate is required (REQUIRE_WEAVIATE=1 or CI).
 */
export function weaviateSkipReason(): string | undefined {
  if (process.env.WEAVIATE_URL) return undefined;
  const bin = weaviateBinaryPath();
  if (existsSync(bin)) return undefined;
  return missingBackend("weaviate", `no binary at ${bin}; run scripts/install-weaviate.sh or set WEAVIATE_URL`);
}

/** Starts Weaviate (or adopts WEAVIATE_URL) and resolves once it reports ready. */
export async function startWeaviate(opts: StartWeaviateOptions = {}): Promise<WeaviateServer> {
  const nodes = opts.nodes ?? 1;
  if (nodes !== 1) throw new Error(`startWeaviate: only a single node is supported so far, got nodes=${nodes}`);
  const external = process.env.WEAVIATE_URL;
  if (external) return adoptExternal(external);
  const bin = weaviateBinaryPath();
  if (!existsSync(bin)) {
    throw new Error(missingBackend("weaviate", `no binary at ${bin}; run scripts/install-weaviate.sh`));
  }
  const node = await startNode(bin, "node1", [], opts.readyTimeoutMs ?? 60_000);
  return node;
}

function adoptExternal(httpUrl: string): WeaviateServer {
  const u = new URL(httpUrl);
  const httpPort = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  const grpcUrl = process.env.WEAVIATE_GRPC_URL ?? `${u.hostname}:50051`;
  const grpcPort = Number(grpcUrl.split(":").pop());
  return { httpUrl, grpcUrl, httpPort, grpcPort, stop: async () => {} };
}

interface NodePorts {
  http: number;
  grpc: number;
  gossip: number;
  data: number;
  raft: number;
  raftRpc: number;
}

async function startNode(bin: string, hostname: string, joinPeers: string[], readyTimeoutMs: number): Promise<WeaviateServer> {
  const ports = await allocatePorts();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-weaviate-"));
  const join = [`${hostname}:${ports.raft}`, ...joinPeers].join(",");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PERSISTENCE_DATA_PATH: dataDir,
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: "true",
    DEFAULT_VECTORIZER_MODULE: "none",
    ENABLE_MODULES: "",
    CLUSTER_HOSTNAME: hostname,
    CLUSTER_GOSSIP_BIND_PORT: String(ports.gossip),
    CLUSTER_DATA_BIND_PORT: String(ports.data),
    CLUSTER_ADVERTISE_ADDR: "127.0.0.1",
    GRPC_PORT: String(ports.grpc),
    RAFT_PORT: String(ports.raft),
    RAFT_INTERNAL_RPC_PORT: String(ports.raftRpc),
    RAFT_BOOTSTRAP_EXPECT: "1",
    RAFT_JOIN: join,
    DISABLE_TELEMETRY: "true",
    LOG_LEVEL: "warning",
    QUERY_DEFAULTS_LIMIT: "25",
  };
  const child = spawn(bin, ["--host", "127.0.0.1", "--port", String(ports.http), "--scheme", "http"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 200) stderr.shift();
  });
  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const stop = async (): Promise<void> => {
    await killChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitReady(httpUrl, child, readyTimeoutMs);
  } catch (err) {
    await stop();
    const tail = stderr.join("").split("\n").slice(-20).join("\n");
    throw new Error(`weaviate did not become ready: ${(err as Error).message}\n${tail}`, { cause: err });
  }
  return { httpUrl, grpcUrl: `127.0.0.1:${ports.grpc}`, httpPort: ports.http, grpcPort: ports.grpc, stop };
}

async function waitReady(httpUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`process exited (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    try {
      const res = await fetch(`${httpUrl}/v1/.well-known/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Six distinct free ports, held open together so none is handed out twice. */
async function allocatePorts(): Promise<NodePorts> {
  const servers: net.Server[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const srv = net.createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once("error", reject);
        srv.listen(0, "127.0.0.1", () => resolve());
      });
      servers.push(srv);
      ports.push((srv.address() as net.AddressInfo).port);
    }
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
  const [http, grpc, gossip, data, raft, raftRpc] = ports as [number, number, number, number, number, number];
  return { http, grpc, gossip, data, raft, raftRpc };
}
