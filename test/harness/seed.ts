/**
 * Loads samples of the real corpora (read from ../shared/data, never copied into the repo) into
 * a data directory or Weaviate through the real `threadsight ingest` command, run as a child
 * process exactly as an operator would run it next to a server.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { dataPath } from "../eval/shared-data.js";
import { missingBackend } from "./backend-policy.js";

/** The shared corpora folder (under THREADSIGHT_SHARED_DATA, default ../shared/data). */
export const CORPORA = dataPath("corpora");

/** A default mixed sample: business subreddits, Stack Exchange startups, Hacker News. */
export const SAMPLE_FILES: readonly { file: string; limit: number }[] = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 150 },
  { file: "reddit_top2013/raw_csv/smallbusiness.csv", limit: 150 },
  { file: "reddit_top2013/raw_csv/Entrepreneur.csv", limit: 100 },
  { file: "reddit_top2013/raw_csv/SEO.csv", limit: 60 },
  { file: "stackexchange_startups/startups_se_questions.jsonl", limit: 120 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 200 },
];

/** node:test `skip` value for suites that need the corpora. */
export function corporaSkip(): false | string {
  return existsSync(CORPORA) ? false : missingBackend("data", `${CORPORA} not found`);
}

/** Runs `threadsight ingest` for one file; resolves with its exit code and output. */
export function runIngest(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(["ingest", ...args], env);
}

/** Runs `threadsight topics rebuild` over the index configured by `env`. */
export async function rebuildTopics(env: Record<string, string>): Promise<void> {
  const res = await runCli(["topics", "rebuild"], env);
  if (res.code !== 0) throw new Error(`topics rebuild exited ${res.code}: ${res.stderr.slice(-2000)}`);
}

/** Runs any `threadsight` subcommand from source in a child process. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(PACKAGE_ROOT, "test/harness/cli-entry.ts"), ...args],
      {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, LOG_LEVEL: "warn", EMBED_WORKERS: "2", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Ingests the sample files into the index configured by `env` (THREADSIGHT_DATA_DIR or WEAVIATE_URL). */
export async function seedSample(env: Record<string, string>, files = SAMPLE_FILES): Promise<void> {
  for (const { file, limit } of files) {
    const res = await runIngest([path.join(CORPORA, file), "--limit", String(limit)], env);
    // 3 = finished with some records skipped (documented skip rules); anything else is a failure.
    if (res.code !== 0 && res.code !== 3)
      throw new Error(`ingest ${file} exited ${res.code}: ${res.stderr.slice(-2000)}`);
  }
}
