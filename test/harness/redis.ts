/**
 * Starts a real `redis-server` for a test suite: the Debian binary (or REDIS_SERVER_BIN), on a
 * free loopback port, in a throw-away directory. Without persistence nothing is written; with
 * `persistent: true` every write is appended to an fsynced AOF, so `kill()` (SIGKILL) followed
 * by `restart()` keeps every acknowledged counter, as a restarted production Redis with AOF would.
 */

import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { missingBackend } from "./backend-policy.js";

/** A redis-server owned by the test. */
export interface RedisServer {
  /** redis://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Stops it (SIGTERM) and deletes its directory. */
  stop(): Promise<void>;
  /** SIGKILL: the server vanishes mid-flight, as in a crash. The port stays reserved for restart(). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (after kill() or on a running server). */
  restart(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Append-only file with fsync on every write (for restart tests). Default false. */
  persistent?: boolean;
  readyTimeoutMs?: number;
}

/** The binary used: REDIS_SERVER_BIN, else /usr/bin/redis-server. */
export function redisBinaryPath(): string {
  return process.env.REDIS_SERVER_BIN ?? "/usr/bin/redis-server";
}

/**
 * A skip reason when redis-server is missing, or undefined when the suite can run. Throws when
 * Redis is required (REQUIRE_REDIS=1 or CI).
 */
export function redisSkipReason(): string | undefined {
  const bin = redisBinaryPath();
  if (existsSync(bin)) return undefined;
  return missingBackend("redis", `no redis-server at ${bin}; apt-get install redis-server or set REDIS_SERVER_BIN`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket; true on +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: "127.0.0.1" });
    let data = "";
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.on("error", () => done(false));
    sock.on("connect", () => sock.write("PING\r\n"));
    sock.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("\r\n")) done(data.startsWith("+PONG"));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts redis-server and resolves once it answers PING. */
export async function startRedis(opts: StartRedisOptions = {}): Promise<RedisServer> {
  const bin = redisBinaryPath();
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-redis-"));
  const port = await freePort();
  const persistence = opts.persistent
    ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
    : ["--appendonly", "no", "--save", ""];
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--protected-mode", "no", ...persistence];
  let child: ChildProcess | undefined;
  let log = "";

  async function launch(): Promise<void> {
    log = "";
    const c = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = c;
    c.stdout?.on("data", (d: Buffer) => (log += d.toString()));
    c.stderr?.on("data", (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 10_000);
    while (Date.now() < deadline) {
      if (c.exitCode !== null) throw new Error(`redis-server exited with ${c.exitCode}:\n${log}`);
      if (await ping(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    c.kill("SIGKILL");
    throw new Error(`redis-server did not answer PING on port ${port}:\n${log}`);
  }

  async function signal(sig: NodeJS.Signals): Promise<void> {
    const c = child;
    if (c === undefined) return;
    child = undefined;
    if (c.exitCode === null && c.signalCode === null) c.kill(sig);
    await exited(c);
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await signal("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => signal("SIGKILL"),
    async restart() {
      await signal("SIGTERM");
      await launch();
    },
  };
}
