/**
 * Measured sections kept between runs (`--only` re-runs one part and the report still shows the
 * others). They live in the repository, beside the report they render (docs/benchmarks.json),
 * not in the machine's cache: a session on a new machine starts with an empty cache, and a
 * report written from it would have dropped every section not measured again (it happened once:
 * the sections measured on the AMD machine survive only as docs/BENCHMARKS.md's text). Each
 * section carries the machine snapshot and load taken when it started; nothing here is ever
 * edited by hand. THREADSIGHT_BENCH_RESULTS names another file (a scratch run's).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import type { MachineInfo } from "./machine.js";

/** Where the benchmark keeps its indexes and Weaviate data (large, rebuilt per machine). */
export const BENCH_DIR = path.resolve(
  process.env.THREADSIGHT_BENCH_DIR ?? path.join(os.homedir(), ".cache", "threadsight-bench"),
);

/** The results store (committed with the report it renders). */
export const RESULTS_FILE = path.resolve(
  process.env.THREADSIGHT_BENCH_RESULTS ?? path.join(PACKAGE_ROOT, "docs", "benchmarks.json"),
);

/** One measured section: when, on what load, and its figures (shape owned by the section). */
export interface StoredSection<T = unknown> {
  machine: MachineInfo;
  durationS: number;
  data: T;
}

/**
 * Sections of a run that writes nothing (`--no-write`): they are rendered with the stored ones
 * but never reach the file, which a trial run on a busy machine would otherwise overwrite.
 */
let unsaved: Record<string, StoredSection> | undefined;

/** From now on, {@link saveResult} keeps sections in memory only (the process's own report still shows them). */
export function keepResultsInMemory(): void {
  unsaved ??= {};
}

/** All stored sections by key (with this run's unsaved ones over them). */
export function loadResults(): Record<string, StoredSection> {
  const stored = existsSync(RESULTS_FILE)
    ? (JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as Record<string, StoredSection>)
    : {};
  return unsaved === undefined ? stored : { ...stored, ...unsaved };
}

/** Stores (replaces) one section. Keys are written sorted, so a commit's diff shows what changed. */
export function saveResult(key: string, section: StoredSection): void {
  if (unsaved !== undefined) {
    unsaved[key] = section;
    return;
  }
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  const all = loadResults();
  all[key] = section;
  const sorted = Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((k) => [k, all[k]]),
  );
  writeFileSync(`${RESULTS_FILE}.tmp`, `${JSON.stringify(sorted, null, 1)}\n`);
  renameSync(`${RESULTS_FILE}.tmp`, RESULTS_FILE);
}
