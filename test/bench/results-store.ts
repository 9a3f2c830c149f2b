/**
 * Measured sections kept between runs (`--only` re-runs one part and the report still shows the
 * others), in THREADSIGHT_BENCH_DIR (default ~/.cache/threadsight-bench)/results.json. Each section
 * carries the machine snapshot and load taken when it started; nothing here is ever edited by hand.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { MachineInfo } from "./machine.js";

/** Where the benchmark keeps its indexes, Weaviate data and results. */
export const BENCH_DIR = path.resolve(process.env.THREADSIGHT_BENCH_DIR ?? path.join(os.homedir(), ".cache", "threadsight-bench"));

/** One measured section: when, on what load, and its figures (shape owned by the section). */
export interface StoredSection<T = unknown> {
  machine: MachineInfo;
  durationS: number;
  data: T;
}

const FILE = path.join(BENCH_DIR, "results.json");

/** All stored sections by key. */
export function loadResults(): Record<string, StoredSection> {
  if (!existsSync(FILE)) return {};
  return JSON.parse(readFileSync(FILE, "utf8")) as Record<string, StoredSection>;
}

/** Stores (replaces) one section. */
export function saveResult(key: string, section: StoredSection): void {
  mkdirSync(BENCH_DIR, { recursive: true });
  const all = loadResults();
  all[key] = section;
  writeFileSync(`${FILE}.tmp`, JSON.stringify(all, null, 1));
  renameSync(`${FILE}.tmp`, FILE);
}
