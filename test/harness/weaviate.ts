/**
 * Starts a real Weaviate server for a test suite: the binary built by scripts/install-weaviate.sh
 * (or WEAVIATE_BIN), on free loopback ports, with a throw-away data directory. When WEAVIATE_URL
 * is set, that server is used instead and nothing is started.
 *
 * Every node gets its own ports and data directory. `startWeaviateNode` hands back a
 * node that can be SIGKILLed and restarted on the same data and ports (fault tests), and
 * `startWeaviateCluster(n)` starts n such nodes as one Raft cluster on loopback.
 */

import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
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
  /** Must be 1; a cluster comes from startWeaviateCluster. */
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
  if (nodes !== 1) throw new Error(`startWeaviate: one node only; use startWeaviateCluster(${nodes}) for a cluster`);
  const external = process.env.WEAVIATE_URL;
  if (external) return adoptExternal(external);
  return startWeaviateNode({ readyTimeoutMs: opts.readyTimeoutMs });
}

/**
 * Skip reason for suites that must own the Weaviate process (to kill and restart it): they
 * need the binary even when WEAVIATE_URL points at a server someone else runs.
 */
export function localWeaviateSkipReason(): string | undefined {
  const bin = weaviateBinaryPath();
  if (existsSync(bin)) return undefined;
  return missingBackend(
    "weaviate",
    `no binary at ${bin}; run scripts/install-weaviate.sh (fault tests start their own servers)`,
  );
}

function adoptExternal(httpUrl: string): WeaviateServer {
  const u = new URL(httpUrl);
  const httpPort = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  const grpcUrl = process.env.WEAVIATE_GRPC_URL ?? `${u.hostname}:50051`;
  const grpcPort = Number(grpcUrl.split(":").pop());
  return { httpUrl, grpcUrl, httpPort, grpcPort, stop: async () => {} };
}

/** Every port one node listens on. Data is gossip + 1 and Raft RPC is Raft + 1: peers derive them. */
export interface NodePorts {
  http: number;
  grpc: number;
  gossip: number;
  data: number;
  raft: number;
  raftRpc: number;
}

/** A Weaviate process this harness owns: it can be killed and started again on the same data. */
export interface WeaviateNode extends WeaviateServer {
  /** CLUSTER_HOSTNAME, the name Raft and `node_name` use. */
  name: string;
  dataDir: string;
  ports: NodePorts;
  /** True between a successful start and kill/stop. */
  readonly running: boolean;
  /** The current process's id (to read its memory and CPU from /proc); undefined before a start. */
  readonly pid: number | undefined;
  /** SIGKILL, no shutdown: what a crashed machine looks like. The data stays. */
  kill(): Promise<void>;
  /** Starts the process again on the same data directory and ports; resolves when ready. */
  restart(): Promise<void>;
  /** SIGSTOP: the process stays, its sockets accept but nothing answers (a hung engine). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

/** Options for {@link startWeaviateNode}. */
export interface StartNodeOptions {
  name?: string;
  /** Keep data here (kept on stop); default a temporary directory removed on stop. */
  dataDir?: string;
  /** Fixed ports (e.g. kept from an earlier run, since Raft remembers its address). */
  ports?: NodePorts;
  /** Extra environment, e.g. the cluster settings. */
  env?: Record<string, string>;
  /** Environment changes for restarts only (a cluster's first node joins its peers then). */
  restartEnv?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Wait for /v1/.well-known/ready before resolving (a cluster node waits for its peers). */
  waitReady?: boolean;
  /**
   * How long stop() waits after SIGTERM before SIGKILL, ms (default 5,000). A server holding a
   * large index (the benchmark's) needs longer to flush it, or its next start replays the WAL.
   */
  stopTimeoutMs?: number;
}

/** Starts one local Weaviate node from the cached binary. */
export async function startWeaviateNode(opts: StartNodeOptions = {}): Promise<WeaviateNode> {
  const bin = weaviateBinaryPath();
  if (!existsSync(bin)) {
    throw new Error(missingBackend("weaviate", `no binary at ${bin}; run scripts/install-weaviate.sh`));
  }
  const name = opts.name ?? "node1";
  const ports = opts.ports ?? (await allocatePorts());
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "threadsight-weaviate-"));
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PERSISTENCE_DATA_PATH: dataDir,
    AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED: "true",
    DEFAULT_VECTORIZER_MODULE: "none",
    ENABLE_MODULES: "",
    CLUSTER_HOSTNAME: name,
    CLUSTER_GOSSIP_BIND_PORT: String(ports.gossip),
    CLUSTER_DATA_BIND_PORT: String(ports.data),
    CLUSTER_ADVERTISE_ADDR: "127.0.0.1",
    GRPC_PORT: String(ports.grpc),
    RAFT_PORT: String(ports.raft),
    RAFT_INTERNAL_RPC_PORT: String(ports.raftRpc),
    RAFT_BOOTSTRAP_EXPECT: "1",
    RAFT_JOIN: `${name}:${ports.raft}`,
    DISABLE_TELEMETRY: "true",
    LOG_LEVEL: "warning",
    QUERY_DEFAULTS_LIMIT: "25",
    ...opts.env,
  };
  const httpUrl = `http://127.0.0.1:${ports.http}`;
  let child: ChildProcess | undefined;
  const stderr: string[] = [];
  const tail = (): string => stderr.join("").split("\n").slice(-20).join("\n");
  const launch = async (restarting: boolean): Promise<void> => {
    const proc = spawn(bin, ["--host", "127.0.0.1", "--port", String(ports.http), "--scheme", "http"], {
      env: restarting ? { ...env, ...opts.restartEnv } : env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = proc;
    proc.stderr?.setEncoding("utf8");
    proc.stderr?.on("data", (chunk: string) => {
      stderr.push(chunk);
      if (stderr.length > 200) stderr.shift();
    });
    // The last resort when a suite dies without stop(): no Weaviate outlives the test process.
    const onExit = (): void => void proc.kill("SIGKILL");
    process.once("exit", onExit);
    proc.once("exit", () => process.removeListener("exit", onExit));
    if (opts.waitReady === false && !restarting) return;
    try {
      await waitReady(httpUrl, proc, readyTimeoutMs);
    } catch (err) {
      await killChild(proc, "SIGKILL");
      throw new Error(`weaviate ${name} did not become ready: ${(err as Error).message}\n${tail()}`, { cause: err });
    }
  };
  const isRunning = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;
  const node: WeaviateNode = {
    name,
    dataDir,
    ports,
    httpUrl,
    grpcUrl: `127.0.0.1:${ports.grpc}`,
    httpPort: ports.http,
    grpcPort: ports.grpc,
    get running() {
      return isRunning();
    },
    get pid() {
      return child?.pid;
    },
    async kill() {
      if (child !== undefined) await killChild(child, "SIGKILL");
    },
    async restart() {
      if (isRunning()) throw new Error(`weaviate ${name} is still running; kill it first`);
      await launch(true);
    },
    pause() {
      if (isRunning()) child!.kill("SIGSTOP");
    },
    resume() {
      if (isRunning()) child!.kill("SIGCONT");
    },
    async stop() {
      // A paused process cannot act on SIGTERM until it runs again.
      if (isRunning()) child!.kill("SIGCONT");
      if (child !== undefined) await killChild(child, "SIGTERM", opts.stopTimeoutMs);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await launch(false);
  } catch (err) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return node;
}

/** Resolves once `node` answers ready (for nodes started with waitReady: false). */
export async function waitNodeReady(node: WeaviateServer, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${node.httpUrl}/v1/.well-known/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`weaviate at ${node.httpUrl} not ready after ${timeoutMs} ms`);
}

/** A local multi-node cluster; nodes[0] is the one clients are usually pointed at. */
export interface WeaviateCluster {
  nodes: WeaviateNode[];
  /** Stops every node and removes their data. */
  stop(): Promise<void>;
}

/**
 * Starts `n` nodes of one Raft cluster on loopback (each its own ports and data directory) and
 * resolves when every node is ready and sees all `n` members. CLUSTER_IN_LOCALHOST makes the
 * nodes address each other on 127.0.0.1. A memberlist join fails start-up only when no peer
 * answers, so the first node starts alone and the others join it; on a restart every node
 * lists all its peers, so whichever node returns finds the ones still up.
 */
export async function startWeaviateCluster(
  n: number,
  opts: { readyTimeoutMs?: number } = {},
): Promise<WeaviateCluster> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`cluster size must be a positive whole number, got ${n}`);
  const names = Array.from({ length: n }, (_, i) => `node${i + 1}`);
  const ports: NodePorts[] = [];
  for (let i = 0; i < n; i++) ports.push(await allocatePorts(ports));
  const raftJoin = names.map((name, i) => `${name}:${ports[i]!.raft}`).join(",");
  const peersOf = (i: number): string =>
    ports
      .filter((_, j) => j !== i)
      .map((p) => `127.0.0.1:${p.gossip}`)
      .join(",");
  const timeoutMs = opts.readyTimeoutMs ?? 120_000;
  const nodes: WeaviateNode[] = [];
  const startOne = (i: number): Promise<WeaviateNode> =>
    startWeaviateNode({
      name: names[i],
      ports: ports[i],
      // With RAFT_BOOTSTRAP_EXPECT=n no node is ready until the others are up.
      waitReady: false,
      env: {
        CLUSTER_IN_LOCALHOST: "true",
        RAFT_JOIN: raftJoin,
        RAFT_BOOTSTRAP_EXPECT: String(n),
        ...(i === 0 ? {} : { CLUSTER_JOIN: `127.0.0.1:${ports[0]!.gossip}` }),
      },
      restartEnv: n > 1 ? { CLUSTER_JOIN: peersOf(i) } : {},
    });
  try {
    nodes.push(await startOne(0));
    await waitListening(ports[0]!.gossip, timeoutMs);
    const rest = await Promise.allSettled(names.slice(1).map((_, k) => startOne(k + 1)));
    for (const s of rest) if (s.status === "fulfilled") nodes.push(s.value);
    const failed = rest.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await Promise.all(nodes.map((node) => waitNodeReady(node, timeoutMs)));
    await waitClusterSize(nodes[0]!, n, timeoutMs);
  } catch (err) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw err;
  }
  return { nodes, stop: async () => void (await Promise.all(nodes.map((node) => node.stop()))) };
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
async function waitListening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listening on port ${port} after ${timeoutMs} ms`);
}

/** Waits until `node` reports `n` healthy members in /v1/nodes. */
export async function waitClusterSize(node: WeaviateServer, n: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${node.httpUrl}/v1/nodes`, { signal: AbortSignal.timeout(2000) });
      const body = (await res.json()) as { nodes?: { name: string; status: string }[] };
      last = JSON.stringify(body.nodes?.map((x) => [x.name, x.status]));
      if ((body.nodes ?? []).filter((x) => x.status === "HEALTHY").length >= n) return;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`cluster did not reach ${n} healthy nodes within ${timeoutMs} ms (last: ${last})`);
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

async function killChild(child: ChildProcess, sig: "SIGTERM" | "SIGKILL", graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(sig);
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Free ports for one node, held open together so none is handed out twice. Gossip/data and
 * Raft/Raft-RPC are consecutive pairs, because peers derive the second from the first.
 * `taken` are ports of other nodes of the same cluster, which are not listening yet.
 */
export async function allocatePorts(taken: readonly NodePorts[] = []): Promise<NodePorts> {
  const avoid = new Set(taken.flatMap((p) => Object.values(p)));
  const servers: net.Server[] = [];
  const listen = (port: number): Promise<net.Server | undefined> =>
    new Promise((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(undefined));
      srv.listen(port, "127.0.0.1", () => resolve(srv));
    });
  const single = async (): Promise<number> => {
    for (;;) {
      const srv = await listen(0);
      if (srv === undefined) continue;
      servers.push(srv);
      const port = (srv.address() as net.AddressInfo).port;
      if (!avoid.has(port)) return port;
    }
  };
  const pair = async (): Promise<number> => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const first = await single();
      if (first >= 65535 || avoid.has(first + 1)) continue;
      const second = await listen(first + 1);
      if (second === undefined) continue;
      servers.push(second);
      return first;
    }
    throw new Error("no two consecutive free ports found");
  };
  try {
    const http = await single();
    const grpc = await single();
    const gossip = await pair();
    const raft = await pair();
    return { http, grpc, gossip, data: gossip + 1, raft, raftRpc: raft + 1 };
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
