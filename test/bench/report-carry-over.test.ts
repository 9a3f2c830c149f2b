/**
 * The benchmark report is written from the results store; sections the store lacks (measured on
 * another machine before the store was committed) are carried over from the current report, and
 * a report that would still lose one is not written.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { writeReport } from "./report.js";
import { carriedRows } from "./report-carried-figures.js";
import { carryOver, measuredSections } from "./report-carry-over.js";

const CURRENT = [
  "# Benchmarks",
  "",
  "- Written: 2026-11-23T05:08:20.562Z",
  "- Machine: AMD EPYC, 2 cores",
  "",
  "## Ingest",
  "",
  "### Embedder raw throughput vs the ingest pipeline",
  "",
  "**lancedb**, full",
  "",
  "- 1,000 posts (measured 2026-11-24 22:34 UTC, 0.7 min): raw 283.5",
  "- 92,912 posts (measured 2026-11-24 20:49 UTC, 37.4 min): raw 294.1",
  "",
  "**weaviate**, full",
  "",
  "- 1,000 posts (measured 2026-11-24 22:38 UTC, 0.8 min): raw 258.1",
  "",
  "### All four corpora",
  "",
  "Each corpus file once.",
  "",
  "**lancedb**, whole corpora (measured 2026-11-24 21:28 UTC, 5.7 min, load at start 1.14)",
  "",
  "| corpus | rows |",
  "| reddit | 59,874 |",
  "",
  "**weaviate**, whole corpora (measured 2026-11-22 09:43 UTC, 4.1 min, load at start 1.97)",
  "",
  "| corpus | rows |",
  "",
  "Weaviate collection `BenchPostsfull` filled: 65,038 rows in 634 s (measured 2026-11-22 08:04 UTC, 10.9 min)",
  "",
  "## Search latency",
  "",
  "Static text.",
  "",
  "**lancedb**, 92,912 posts in the index (measured 2026-11-22 23:38 UTC, 0.9 min, load at start 1.39)",
  "",
  "| a | b |",
  "",
  "**weaviate**, 92,912 posts in the index (measured 2026-11-23 11:58 UTC, 1.3 min, load at start 1.02)",
  "",
  "| c | d |",
  "",
  "## Limiter overhead",
  "",
  "test/bench/limiter.ts run 2 times (each: 2,000 calls); the median (measured 2026-11-22 07:16 UTC, 0.9 min)",
  "",
  "## Scaling",
  "",
  "| backend | posts |",
  "| lancedb | 10,000 |",
  "",
  "### ListTrends and FindLeads over the replicated store",
  "",
  "**lancedb**, 1,000,000 posts (measured 2026-11-23 02:45 UTC, 0.8 min)",
  "",
].join("\n");

/** What the renderer writes from a store holding only a new Weaviate search section and a new copy. */
const FRESH = [
  "# Benchmarks",
  "",
  "- Written: 2026-11-27T16:00:00.000Z",
  "- Machine of the stored sections: Intel(R) Xeon(R) Processor, 2 cores",
  "",
  "## Ingest",
  "",
  "### Embedder raw throughput vs the ingest pipeline",
  "",
  "**lancedb**, full",
  "",
  "- 1,000 posts (measured 2026-11-27 17:40 UTC on Intel, 0.7 min): raw 290.1",
  "- 92,912 posts (measured 2026-11-27 16:53 UTC on Intel, 38.8 min): raw 297.8",
  "",
  "### All four corpora",
  "",
  "Each corpus file once.",
  "",
  "Not measured yet: no whole-corpora pipeline ingest into Weaviate for this data size.",
  "",
  "Weaviate collection `BenchPostsfull` filled: 92,912 rows in 152 s (measured 2026-11-27 16:32 UTC on Intel, 2.5 min)",
  "",
  "## Search latency",
  "",
  "Static text, revised.",
  "",
  "**weaviate**, 92,912 posts in the index (measured 2026-11-27 16:35 UTC on Intel, 1.1 min, load at start 1.33)",
  "",
  "| c | e |",
  "",
  "## Limiter overhead",
  "",
  "## Scaling",
  "",
  "Not measured yet (`npm run bench -- --only scaling`).",
  "",
].join("\n");

test("measured sections are named by heading and backend, not by their figures", () => {
  assert.deepEqual(
    [...measuredSections(CURRENT)],
    [
      "### Embedder raw throughput vs the ingest pipeline / **lancedb** / - 1,000 posts",
      "### Embedder raw throughput vs the ingest pipeline / **lancedb** / - 92,912 posts",
      "### Embedder raw throughput vs the ingest pipeline / **weaviate** / - 1,000 posts",
      "### All four corpora / **lancedb**",
      "### All four corpora / **weaviate**",
      "### All four corpora / Weaviate collection `BenchPostsfull` filled",
      "## Search latency / **lancedb**",
      "## Search latency / **weaviate**",
      "## Limiter overhead / test/bench/limiter.ts run N times (each",
      "### ListTrends and FindLeads over the replicated store / **lancedb**",
    ],
  );
  const rerun = CURRENT.replaceAll("2026-11-2", "2026-12-0")
    .replace("run 2 times", "run 3 times")
    .replaceAll("92,912 posts in the index", "93,000 posts in the index");
  assert.deepEqual(measuredSections(rerun), measuredSections(CURRENT));
});

test("blocks and sections the store lacks are carried under their headings; what it has again is not doubled", () => {
  const out = carryOver(FRESH, CURRENT);
  assert.deepEqual(measuredSections(out), measuredSections(CURRENT));
  const lines = out.split("\n");
  // The new Weaviate search block and the new static text stand; the LanceDB one comes from the current report.
  assert.ok(lines.includes("Static text, revised."));
  assert.ok(lines.includes("| c | e |") && !lines.includes("| c | d |"));
  assert.ok(lines.includes("| a | b |"));
  const search = lines.indexOf("## Search latency");
  assert.ok(lines.findIndex((l) => l.startsWith("**lancedb**, 92,912")) > search);
  // The Weaviate ingest block is carried without the copy line it used to end with: the store has a newer one.
  assert.equal(lines.filter((l) => l.startsWith("Weaviate collection")).length, 1);
  assert.ok(lines.some((l) => l.includes("92,912 rows in 152 s")));
  // The placeholder that spoke of the store alone goes once the block it named is carried.
  assert.ok(!lines.some((l) => l.startsWith("Not measured yet: no whole-corpora")));
  // Sections measured nowhere in the store come whole, sub-sections included.
  assert.ok(lines.some((l) => l.startsWith("test/bench/limiter.ts run 2 times")));
  assert.ok(
    lines.includes("| lancedb | 10,000 |") &&
      !lines.some((l) => l.startsWith("Not measured yet (`npm run bench -- --only scaling")),
  );
  assert.ok(lines.includes("### ListTrends and FindLeads over the replicated store"));
  // The header says where the carried sections ran.
  assert.ok(
    lines.includes(
      "- Sections carried over from earlier reports, whose measured line names no processor, ran on: AMD EPYC, 2 cores",
    ),
  );
});

test("a report that would still lose a section is not written, unless asked", () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "bench-report-")), "BENCHMARKS.md");
  writeFileSync(file, CURRENT);
  // A backend block the store has, but with fewer of its slices: the block is not carried.
  const fewerSlices = FRESH.replace(/^- 1,000 posts .*\n/m, "");
  assert.throws(
    () => writeReport(fewerSlices, false, file),
    /lacks 1 section\(s\) the report has: ### Embedder raw throughput vs the ingest pipeline \/ \*\*lancedb\*\* \/ - 1,000 posts/,
  );
  // The renderer no longer writes the scaling sub-heading's section at all: nothing can carry it.
  const renamed = FRESH.replace("## Scaling", "## Scale");
  assert.throws(
    () => writeReport(renamed, false, file),
    /lacks 1 section\(s\) the report has: ### ListTrends and FindLeads over the replicated store \/ \*\*lancedb\*\*/,
  );
  assert.equal(readFileSync(file, "utf8"), CURRENT);
  writeReport(renamed, true, file);
  assert.equal(readFileSync(file, "utf8"), renamed);
  // Otherwise the carried report is written.
  writeFileSync(file, CURRENT);
  writeReport(FRESH, false, file);
  assert.equal(readFileSync(file, "utf8"), carryOver(FRESH, CURRENT));
});

test("a section carried whole keeps the new method line and drops the old narrative before its figures", () => {
  const current = [
    "# Benchmarks",
    "",
    "## Insights",
    "",
    "Old narrative: how the figure was reached, with 12.3 ms from a run by hand.",
    "",
    "**lancedb**, 92,912 posts (measured 2026-11-25 00:29 UTC, 0.9 min)",
    "",
    "| op | p50 |",
    "| trends | 26.1 |",
    "",
  ].join("\n");
  const fresh = [
    "# Benchmarks",
    "",
    "## Insights",
    "",
    "Method: ListTrends over a year. Goal: p50 <= 100 ms.",
    "",
  ].join("\n");
  const out = carryOver(fresh, current);
  assert.ok(out.includes("Method: ListTrends over a year."), out);
  assert.ok(!out.includes("Old narrative"), out);
  assert.ok(out.includes("**lancedb**, 92,912 posts (measured 2026-11-25 00:29 UTC, 0.9 min)"), out);
  assert.ok(out.includes("| trends | 26.1 |"), out);
});

/** A report's opening down to its scaling section, as both reports of the next test have it. */
const SCALING_HEAD = [
  "# Benchmarks",
  "",
  "## Current figures",
  "",
  "| figure | value |",
  "| --- | --- |",
  "",
  "## Scaling",
  "",
];

test("rows of a per-size table the store lacks are merged under the new header, machine and date not recorded", () => {
  const current = [
    ...SCALING_HEAD,
    "| backend | posts | p50 ms | measured |",
    "| --- | --- | --- | --- |",
    "| lancedb | 10,000 | 128.3 | 08:46 UTC, load 17.1 |",
    "| weaviate | 10,000 | 16.8 | 18:41 UTC, load 1.0 |",
    "",
    "Growth per 10x posts:",
    "",
    "| backend | sizes |",
    "| lancedb | 10x |",
    "",
  ].join("\n");
  const fresh = [
    ...SCALING_HEAD,
    "| backend | posts | p50 ms | machine | date (UTC) | run |",
    "| --- | --- | --- | --- | --- | --- |",
    "| lancedb | 200,000 | 232.5 | AMD EPYC, 2 cores | 2026-12-02 | 04:30 UTC, load 22.9 |",
    "",
    "Not measured yet (no completed run stored): lancedb 10,000.",
    "",
  ].join("\n");
  const out = carryOver(fresh, current);
  const lines = out.split("\n");
  assert.deepEqual(
    lines.filter((l) => /^\| (lancedb|weaviate) \| \d+,/.test(l)),
    [
      "| lancedb | 10,000 | 128.3 | not recorded | not recorded | 08:46 UTC, load 17.1 |",
      "| lancedb | 200,000 | 232.5 | AMD EPYC, 2 cores | 2026-12-02 | 04:30 UTC, load 22.9 |",
      "| weaviate | 10,000 | 16.8 | not recorded | not recorded | 18:41 UTC, load 1.0 |",
    ],
  );
  assert.ok(lines.includes("Growth per 10x posts:") && lines.includes("| lancedb | 10x |"), out);
  assert.ok(!lines.some((l) => l.startsWith("Not measured yet")), out);
  // The carried rows are listed beside the current figures, with what was not recorded said so.
  assert.ok(lines.includes("| Scaling | lancedb 10,000 posts | not recorded | not recorded | 17.1 |"), out);
  // Written again from its own output, the report is the same.
  assert.equal(carryOver(fresh, out), out);
});

test("carried measured lines get a row naming their date, and their machine only where recorded", () => {
  assert.deepEqual(
    carriedRows([
      [
        "## Search latency",
        "**lancedb**, 92,912 posts in the index (measured 2026-11-22 23:38 UTC, 0.9 min, load at start 1.39 / 1.29 / 1.53 (1/5/15 min) on 2 cores)",
      ],
      ["### Capacity", "**weaviate**, 92,912 posts (measured 2026-11-27 16:35 UTC on Intel(R) Xeon(R), 1.1 min)"],
    ]),
    [
      ["Search latency", "lancedb, 92,912 posts in the index", "not recorded", "2026-11-22", "1.39 / 1.29 / 1.53"],
      ["Capacity", "weaviate, 92,912 posts", "Intel(R) Xeon(R)", "2026-11-27", "not recorded"],
    ],
  );
});
