/**
 * Runs `buf curl` (the @bufbuild/buf binary in node_modules) against a real server, for tests
 * that must see the API exactly as an outside gRPC / Connect / gRPC-Web client does.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";

/** Path of the buf binary the project pins (devDependency @bufbuild/buf). */
export const BUF_BIN: string = path.join(PACKAGE_ROOT, "node_modules", ".bin", "buf");

/** Options for {@link bufCurl}. */
export interface BufCurlOptions {
  /** Written to buf's stdin, e.g. with `-d @-` for large or streamed requests. */
  readonly stdin?: string;
  /** The process is killed after this long, in ms (the result then has code null). Default 30000. */
  readonly timeoutMs?: number;
  /** Extra environment variables for buf. */
  readonly env?: Readonly<Record<string, string>>;
}

/** What `buf curl` did: its exit code (null when killed), stdout and stderr. */
export interface BufCurlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `buf curl <args>` and resolves when it exits, whatever its exit code; assertions on
 * the code are the caller's. Rejects only when the binary cannot be started.
 *
 * @example
 * await bufCurl(["--http2-prior-knowledge", "--list-services", baseUrl])
 */
export function bufCurl(args: readonly string[], opts: BufCurlOptions = {}): Promise<BufCurlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(BUF_BIN, ["curl", ...args], {
      cwd: PACKAGE_ROOT,
      // No color codes and no stray config: tests compare plain text.
      env: { ...process.env, BUF_LOG_FORMAT: "text", NO_COLOR: "1", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? "");
  });
}
