/**
 * The posts the load runs search: real sample posts (test/harness/seed.ts) ingested once through
 * `threadsight ingest` into a cached data directory, with topics rebuilt for ListTrends. Every
 * run then copies the index and topic model into a fresh data directory, so each run starts
 * with empty accounts, usage and quota counters (the usage reconciliation needs that) without
 * paying ~30 ms per post of embedding again.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { rebuildTopics, SAMPLE_FILES, seedSample } from "../harness/seed.js";

/** Where seeded indexes are kept between runs (one directory per size). */
export const LOAD_CACHE = process.env.THREADSIGHT_LOAD_CACHE ?? path.join(os.homedir(), ".cache", "threadsight-load");

/** Written last, so a seeding cut short is redone instead of reused. */
const DONE_MARKER = "seed-done";

/** The default sample scaled to about `posts` posts, keeping its mix of sources. */
export function scaledSample(posts: number): { file: string; limit: number }[] {
  const base = SAMPLE_FILES.reduce((a, f) => a + f.limit, 0);
  return SAMPLE_FILES.map((f) => ({ file: f.file, limit: Math.max(1, Math.round((f.limit * posts) / base)) }));
}

/**
 * A fresh data directory holding a copy of the seeded index (about `posts` posts) and its topic
 * model; seeds the cache first when it is missing. The caller removes the directory.
 */
export async function freshSeededDataDir(posts: number, log: (s: string) => void): Promise<string> {
  const cached = path.join(LOAD_CACHE, `seed-${posts}`);
  if (!existsSync(path.join(cached, DONE_MARKER))) {
    rmSync(cached, { recursive: true, force: true });
    mkdirSync(cached, { recursive: true });
    const t0 = Date.now();
    log(`seeding ~${posts} sample posts into ${cached} (once; embedding takes ~30 ms per post)`);
    const env = { THREADSIGHT_DATA_DIR: cached };
    await seedSample(env, scaledSample(posts));
    await rebuildTopics(env);
    writeFileSync(path.join(cached, DONE_MARKER), new Date().toISOString());
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-load-"));
  // Only the index and the topic model: accounts, quota counters and ingest checkpoints stay
  // behind, so the run's usage starts at zero.
  for (const part of ["lancedb", "topics"])
    cpSync(path.join(cached, part), path.join(dataDir, part), { recursive: true });
  return dataDir;
}
