/**
 * Starts `threadsight ingest` from source in a child process (run-cli.ts) against a given data
 * directory, with the embedded backends unless `env` says otherwise (e.g. WEAVIATE_URL). `killWhen`
 * is polled every 20 ms; when it returns true the child gets `killSignal` (default SIGKILL).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** How a child run ended and what it printed. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the ingest CLI with `args`; see the module comment. */
export function runIngestCli(
  args: readonly string[],
  dataDir: string,
  options: {
    workers?: number;
    killWhen?: () => boolean;
    killSignal?: NodeJS.Signals;
    env?: Record<string, string>;
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "run-cli.ts"), ...args], {
      cwd: path.resolve(here, "../.."),
      env: {
        ...process.env,
        THREADSIGHT_DATA_DIR: dataDir,
        EMBED_WORKERS: String(options.workers ?? 1),
        WEAVIATE_URL: "",
        EMBEDDINGS_URL: "",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const killWhen = options.killWhen;
    const timer =
      killWhen === undefined
        ? undefined
        : setInterval(() => {
            if (killWhen()) {
              clearInterval(timer);
              child.kill(options.killSignal ?? "SIGKILL");
            }
          }, 20);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer !== undefined) clearInterval(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
