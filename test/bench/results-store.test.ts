/**
 * The benchmark's results store: a run with `--no-write` (keepResultsInMemory) renders its new
 * sections with the stored ones and leaves the store's file as it was.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";

const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-results-"));
const file = path.join(dir, "benchmarks.json");
process.env.THREADSIGHT_BENCH_RESULTS = file;
// The store reads its path when it loads, so the module comes after the variable.
const store = await import("./results-store.js");

const section = (durationS: number) => ({ machine: { cpu: "test" } as never, durationS, data: { n: durationS } });

describe("results store", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes sections to its file until told to keep them in memory, then only shows them", () => {
    assert.equal(store.RESULTS_FILE, file);
    store.saveResult("b:kept", section(1));
    const before = readFileSync(file, "utf8");
    assert.deepEqual(Object.keys(JSON.parse(before) as object), ["b:kept"]);

    store.keepResultsInMemory();
    store.saveResult("a:trial", section(2));
    store.saveResult("b:kept", section(3));
    assert.equal(readFileSync(file, "utf8"), before);
    const seen = store.loadResults();
    assert.equal(seen["a:trial"]!.durationS, 2);
    assert.equal(seen["b:kept"]!.durationS, 3);

    // A change to the file by another run still shows under this run's sections.
    writeFileSync(file, JSON.stringify({ "b:kept": section(1), "c:other": section(4) }));
    assert.deepEqual(Object.keys(store.loadResults()).sort(), ["a:trial", "b:kept", "c:other"]);
  });
});
