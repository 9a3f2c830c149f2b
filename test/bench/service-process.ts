/**
 * Starts serve-child.ts as a child process and waits for its address line. The benchmark talks
 * to it only over loopback sockets.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";

/** A service process under test. */
export interface ServiceProcess {
  url: string;
  address: string;
  key: string;
  posts: number;
  pid: number;
  /** The last few KB the service wrote to stderr (its warnings and errors). */
  logTail(): string;
  stop(): Promise<void>;
}

/** Spawns the service over `dataDir` with `env`; rejects if it is not up within `timeoutMs`. */
export function spawnService(
  dataDir: string,
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(PACKAGE_ROOT, "test/bench/serve-child.ts"), JSON.stringify({ dataDir, env })],
    {
      cwd: PACKAGE_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
  );
  // If the benchmark dies (hard stop, crash), the service must not outlive it.
  const orphanGuard = (): void => void child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  child.once("exit", () => process.off("exit", orphanGuard));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr = (stderr + c).slice(-4000)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`service did not start within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      const info = JSON.parse(out.slice(0, nl)) as { url: string; address: string; key: string; posts: number };
      resolve({ ...info, pid: child.pid!, logTail: () => stderr, stop });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was up: ${stderr}`));
    });
  });
}
