/**
 * A throwaway PostgreSQL for integration suites. startPostgres() runs a private server from the
 * Debian packages (initdb + postgres on a free loopback port, fsync off, trust auth, data in a
 * temp dir) and hands out freshly named databases on it, so suites never see each other's rows.
 * With DATABASE_URL_TEST set it uses that server instead and only creates and drops databases.
 * When no server can be had, the result carries a skip reason from backend-policy (a failure
 * under REQUIRE_POSTGRES=1 or CI). On a server it started, stopServer()/startServer() take it
 * down and bring it back on the same port and data (outage tests).
 *
 * Usage in a suite:
 *   const pg = await startPostgres();
 *   describe("...", { skip: pg.skip }, () => { after(() => pg.stop()); ... pg.url ... });
 */

import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { missingBackend } from "./backend-policy.js";

/** A database of its own on a running server. */
export interface PostgresDatabase {
  /** Connection URL of a fresh, empty database. */
  url: string;
  /** Another fresh database on the same server (e.g. one per test). */
  createDatabase(): Promise<string>;
  /** Drops the databases made here, stops the server if we started it, removes its files. */
  stop(): Promise<void>;
  /**
   * Fault tests: stops the server we started (fast shutdown, data kept) so clients see it
   * unreachable. Undefined on a server we did not start (DATABASE_URL_TEST).
   */
  stopServer?: () => Promise<void>;
  /** Starts the server stopped by stopServer again, on the same port and data. */
  startServer?: () => Promise<void>;
  skip?: undefined;
}

/** No server available; `skip` is the reason for node:test. */
export interface PostgresUnavailable {
  skip: string;
  url?: undefined;
  createDatabase?: undefined;
  stop(): Promise<void>;
}

const DEFAULT_BIN_DIRS = ["/usr/lib/postgresql/15/bin"];
const READY_TIMEOUT_MS = 30_000;

function findBinDir(): string | undefined {
  const candidates = [process.env.POSTGRES_BIN_DIR, ...DEFAULT_BIN_DIRS];
  // Prefer 15 (what CI installs); fall back to any other Debian-packaged major version.
  if (existsSync("/usr/lib/postgresql")) {
    for (const v of readdirSync("/usr/lib/postgresql").sort().reverse())
      candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  return candidates.find(
    (d) => d !== undefined && existsSync(path.join(d, "initdb")) && existsSync(path.join(d, "postgres")),
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => (port === undefined ? reject(new Error("no port")) : resolve(port)));
    });
  });
}

function databaseName(): string {
  return `threadsight_test_${randomBytes(6).toString("hex")}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Hands out fresh databases on the server at adminUrl. On a shared server (DATABASE_URL_TEST)
 * stop drops them; on our own server there is no point, its files are about to be removed.
 */
function databasesOn(
  adminUrl: string,
  stopServer: () => Promise<void>,
  drop: boolean,
): (first: string) => PostgresDatabase {
  const made: string[] = [];
  const createDatabase = async (): Promise<string> => {
    const name = databaseName();
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    made.push(name);
    return withDatabase(adminUrl, name);
  };
  let stopped: Promise<void> | undefined;
  return (first) => {
    made.push(first);
    return {
      url: withDatabase(adminUrl, first),
      createDatabase,
      stop: () =>
        (stopped ??= (async () => {
          for (const name of drop ? made.splice(0) : []) {
            // FORCE ends connections a failed test left open; harmless on a server we then stop.
            await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
          }
          await stopServer();
        })()),
    };
  };
}

/** Runs a command as the postgres OS user when we are root (initdb and postgres refuse root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

function osUserIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
  return { uid, gid };
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function waitReady(adminUrl: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`postgres exited early:\n${log()}`);
    try {
      await adminQuery(adminUrl, "SELECT 1");
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`postgres not ready after ${READY_TIMEOUT_MS} ms: ${(err as Error).message}\n${log()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function startLocalServer(binDir: string): Promise<PostgresDatabase> {
  const root = mkdtempSync(path.join(os.tmpdir(), "threadsight-pg-"));
  const dataDir = path.join(root, "data");
  let child: ChildProcess | undefined;
  // Last resort if a suite never calls stop(): no server or temp dir outlives the test process.
  const onExit = (): void => {
    signal(postmasterPid(dataDir) ?? child?.pid, "SIGKILL");
    rmSync(root, { recursive: true, force: true });
  };
  // Ctrl-C or the runner's SIGTERM skip "exit" handlers: clean up, then let the signal act.
  const onSignal = (sig: NodeJS.Signals): void => {
    forget();
    onExit();
    process.kill(process.pid, sig);
  };
  const forget = (): void => {
    process.removeListener("exit", onExit);
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  };
  process.once("exit", onExit);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const stopServer = async (): Promise<void> => {
    forget();
    if (child !== undefined) {
      // SIGINT is PostgreSQL's "fast" shutdown: ends sessions, no waiting for clients.
      signal(postmasterPid(dataDir) ?? child.pid, "SIGINT");
      if (!(await exited(child, 10_000))) {
        signal(postmasterPid(dataDir), "SIGKILL");
        signal(child.pid, "SIGKILL");
        await exited(child, 5_000);
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    if (process.getuid?.() === 0) {
      const { uid, gid } = osUserIds("postgres");
      chownSync(root, uid, gid);
    }
    const [initCmd, initArgs] = asPostgres(path.join(binDir, "initdb"), [
      "-D",
      dataDir,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    execFileSync(initCmd, initArgs, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LC_ALL: "C" } });
    const port = await freePort();
    const [cmd, args] = asPostgres(path.join(binDir, "postgres"), [
      "-D",
      dataDir,
      "-k",
      root,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      // A test database needs no durability; these make start-up and each commit fast.
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=100",
      "-c",
      "shared_buffers=32MB",
    ]);
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const launch = async (): Promise<void> => {
      let output = "";
      const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } });
      child = proc;
      proc.stdout?.on("data", (b: Buffer) => (output += b.toString()));
      proc.stderr?.on("data", (b: Buffer) => (output += b.toString()));
      await waitReady(adminUrl, proc, () => output);
    };
    await launch();
    const first = databaseName();
    await adminQuery(adminUrl, `CREATE DATABASE ${first}`);
    const db = databasesOn(adminUrl, stopServer, false)(first);
    db.stopServer = async () => {
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
      // SIGINT is PostgreSQL's "fast" shutdown: open sessions are ended, the data stays.
      signal(postmasterPid(dataDir) ?? child.pid, "SIGINT");
      if (!(await exited(child, 15_000))) throw new Error("postgres did not stop within 15 s");
    };
    db.startServer = async () => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null)
        throw new Error("postgres is still running");
      await launch();
    };
    return db;
  } catch (err) {
    await stopServer();
    throw err;
  }
}

/**
 * A fresh database on a throwaway server (or on DATABASE_URL_TEST), or a skip reason when
 * PostgreSQL is not installed. Throws when it is required (REQUIRE_POSTGRES=1 or CI) but missing,
 * and whenever an installed server fails to start: that is a bug, not an absence.
 */
export async function startPostgres(): Promise<PostgresDatabase | PostgresUnavailable> {
  const external = process.env.DATABASE_URL_TEST;
  if (external !== undefined && external !== "") {
    const first = databaseName();
    await adminQuery(external, `CREATE DATABASE ${first}`);
    return databasesOn(external, async () => undefined, true)(first);
  }
  const binDir = findBinDir();
  if (binDir === undefined) {
    return {
      skip: missingBackend(
        "postgres",
        "no initdb/postgres in /usr/lib/postgresql/*/bin (install postgresql-15, or set DATABASE_URL_TEST)",
      ),
      stop: async () => undefined,
    };
  }
  return startLocalServer(binDir);
}
