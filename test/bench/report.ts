/**
 * Renders docs/BENCHMARKS.md from the stored sections (results-store.ts). Every number printed
 * here was measured by a section of `npm run bench`; each section states when it ran and the
 * machine's load at that moment, because the machine is shared.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { skippedTotal } from "../../src/ingest/ingest-stats.js";
import { SKIP_REASONS } from "../../src/ingest/read-item.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { table } from "../eval/format.js";
import type { AggregateBenchResult } from "./aggregate.js";
import { AGGREGATE_TEXT, aggregateSection } from "./aggregate.js";
import type { CapacityResult } from "./capacity.js";
import type { CopyResult } from "./copy-index.js";
import type { ExportResult } from "./export.js";
import { EXPORT_TEXT, exportSection } from "./export.js";
import type { FilteredResult } from "./filtered.js";
import { FILTERED_TEXT, filteredSection } from "./filtered.js";
import type { FloorResult } from "./floor.js";
import type { FullIngest, RatioResult } from "./ingest.js";
import type { InsightsResult } from "./insights.js";
import { INSIGHTS_TEXT, insightsSection } from "./insights.js";
import type { LimitsResult } from "./limits.js";
import type { MachineInfo } from "./machine.js";
import { measuredWhen } from "./machine.js";
import type { ProtocolResult } from "./protocol.js";
import type { ReingestResult } from "./reingest.js";
import { reingestSection } from "./reingest.js";
import { carryOver, measuredSections } from "./report-carry-over.js";
import {
  CAPACITY_TEXT,
  capacitySection,
  FLOOR_TEXT,
  floorSection,
  PROFILE_TEXT,
  PROTOCOL_TEXT,
  profileSection,
  protocolSection,
} from "./report-performance.js";
import { summarySection } from "./report-summary.js";
import type { StoredSection } from "./results-store.js";
import { loadResults, RESULTS_FILE } from "./results-store.js";
import { RETAG_TEXT } from "./retag-report.js";
import type { ScalingRow } from "./scaling.js";
import { renderScaling } from "./scaling.js";
import type { SearchResult } from "./search.js";
import type { ProfileResult } from "./search-profile.js";
import { count, fixed } from "./stats.js";
import { storedVectorsNote } from "./stored-vectors.js";
import { syncSection } from "./sync.js";

const GOALS = { ratio: 0.9, semanticP50: 30, vectorP50: 25, memoryMs: 0.2, redisMs: 1 };

const met = (ok: boolean): string => (ok ? "met" : "**not met**");
const when = (s: StoredSection): string => measuredWhen(s.machine, s.durationS);

/** When the pipeline's index did its index work (src/index/lancedb/maintenance.ts). */
function upkeepOf(d: RatioResult): string {
  if (d.backend === "weaviate") return "as each post is written (Weaviate)";
  const mode = d.indexing ?? "live";
  return mode === "live" ? "while writing" : mode === "auto" ? "at the close (no server reading)" : "at the close";
}

/** One table per backend and data tag, a row per slice size (keys ingest-ratio:<backend>:n<posts>:<tag>). */
function ratioSections(entries: [string, StoredSection<RatioResult>][]): string[] {
  const groups = new Map<string, [string, StoredSection<RatioResult>][]>();
  for (const e of entries) {
    const [, backend, , tag] = e[0].split(":");
    const g = `${backend}:${tag}`;
    groups.set(g, [...(groups.get(g) ?? []), e]);
  }
  return [...groups].flatMap(([g, list]) => {
    list.sort((a, b) => a[1].data.posts - b[1].data.posts);
    const rounds = list.map(([, s]) => {
      const d = s.data;
      return `- ${count(d.posts)} posts (${when(s)}): raw ${d.rawPerS.map((x) => fixed(x)).join(", ")}; pipeline ${d.pipelinePerS.map((x) => fixed(x)).join(", ")}.`;
    });
    return [
      `**${list[0]![1].data.backend}**, ${g.split(":")[1]}`,
      "",
      table(
        [
          "posts in slice",
          "rounds",
          "index upkeep",
          "embedder raw (texts/s, median)",
          "pipeline end-to-end (posts/s, median)",
          "ratio (median of per-round ratios)",
          `goal >= ${GOALS.ratio * 100}%`,
        ],
        list.map(([, s]) => [
          count(s.data.posts),
          String(s.data.rounds),
          upkeepOf(s.data),
          fixed(s.data.medianRaw),
          fixed(s.data.medianPipeline),
          `${fixed(100 * s.data.medianRatio)}%`,
          met(s.data.medianRatio >= GOALS.ratio),
        ]),
      ),
      "",
      "Per round:",
      "",
      ...rounds,
      "",
    ];
  });
}

function fullSection(s: StoredSection<FullIngest>): string {
  const d = s.data;
  const rows = d.corpora.map((c) => {
    const skipped = skippedTotal(c.stats);
    const reasons = SKIP_REASONS.filter((r) => c.stats.skipped[r] > 0)
      .map((r) => `${r} ${c.stats.skipped[r]}`)
      .join(", ");
    const complete = c.stats.read === c.sourceRows;
    const expected = c.sourceRows - skipped - c.stats.failed;
    const check = !complete
      ? `partial: ${count(c.stats.read)} of ${count(c.sourceRows)} rows read`
      : c.indexCount === expected
        ? "complete: index = rows - skips"
        : `**mismatch** (expected ${count(expected)})`;
    const rate = c.reused ? "(earlier run)" : fixed(c.postsThisRun / Math.max(c.seconds, 1e-9));
    return [
      c.name,
      count(c.sourceRows),
      count(c.stats.read),
      count(c.stats.inserted),
      count(c.stats.updated),
      count(c.stats.failed),
      `${count(skipped)}${reasons ? ` (${reasons})` : ""}`,
      count(c.indexCount),
      check,
      fixed(c.seconds, 0),
      rate,
    ];
  });
  const fresh = d.corpora.filter((c) => !c.reused);
  const posts = fresh.reduce((a, c) => a + c.postsThisRun, 0);
  const secs = fresh.reduce((a, c) => a + c.seconds, 0);
  const reused = d.corpora.filter((c) => c.reused).map((c) => c.name);
  return [
    `**${d.backend}**, ${d.limitPerCorpus === undefined ? "whole corpora" : `at most ${d.limitPerCorpus} posts per corpus`} (${when(s)})`,
    "",
    table(
      [
        "corpus",
        "source rows",
        "read",
        "inserted",
        "updated",
        "failed",
        "skipped",
        "in index",
        "check",
        "seconds",
        "posts/s",
      ],
      rows,
    ),
    "",
    `This run: ${count(posts)} posts in ${fixed(secs, 0)} s = ${fixed(posts / Math.max(secs, 1e-9))} posts/s; index total ${count(d.indexTotal)}.` +
      (reused.length > 0 ? ` Reused from an earlier run (not re-timed): ${reused.join(", ")}.` : "") +
      (fresh.some((c) => c.resumedFrom > 0)
        ? " Some corpora resumed from a checkpoint; their rate covers this run's part only."
        : ""),
    ...(d.vectors ? ["", storedVectorsNote(d.vectors)] : []),
    ...(d.corpora.some((c) => c.stats.read < c.sourceRows)
      ? [
          "",
          `**Not complete**: the run was stopped (deadline or signal) before every corpus was read; rerun \`npm run bench -- --only ingest --backend ${d.backend}\` to resume from the checkpoints. "In index" can exceed "read" by up to one batch (256) for the corpus that was cut: that batch was written but its checkpoint not yet saved, and the rerun replays it as updates (the pipeline's documented resume rule).`,
        ]
      : []),
    "",
    `Source rows are counted without our readers: \`zstd -dc --long=31 | count lines\` for the Reddit dump, line counts for the JSON Lines files, csv-parse records minus the header for the HN CSV.`,
  ].join("\n");
}

function copySection(s: StoredSection<CopyResult>): string {
  const d = s.data;
  return `Weaviate collection \`${d.to}\` filled from the embedded index's rows and vectors (copy-index.ts, WeaviateIndex.upsert): ${count(d.rows)} rows, ${count(d.inserted)} inserted, ${count(d.updated)} updated, ${count(d.failed)} failed, in ${fixed(d.seconds, 0)} s (${fixed(d.rows / Math.max(d.seconds, 1e-9))} posts/s without embedding); the collection then held ${count(d.targetCount)} posts. (${when(s)})`;
}

function searchSection(s: StoredSection<SearchResult>): string {
  const d = s.data;
  const rows = [...d.rows]
    .sort(
      (a, b) =>
        a.method.localeCompare(b.method) ||
        b.cache.localeCompare(a.cache) ||
        a.concurrency - b.concurrency ||
        a.protocol.localeCompare(b.protocol),
    )
    .map((r) => {
      const goalMs = r.method === "semantic" ? GOALS.semanticP50 : GOALS.vectorP50;
      const goal =
        d.backend === "lancedb" && r.concurrency === 1 && r.cache === "cold"
          ? `p50 <= ${goalMs} ms: ${met(r.p50 <= goalMs)}`
          : "";
      const notes = [
        goal,
        r.anyCapped ? "time cap hit" : "",
        r.errors > 0 ? `${r.errors} failed calls, e.g. ${r.firstError ?? ""}` : "",
      ]
        .filter(Boolean)
        .join("; ");
      return [
        r.method,
        r.protocol,
        String(r.concurrency),
        r.cache,
        String(r.callsPerRun),
        fixed(r.p50),
        fixed(r.p95),
        fixed(r.p99),
        fixed(r.rps),
        notes,
      ];
    });
  const split = d.split.map((x) => [
    x.method,
    String(x.queries),
    fixed(x.endToEnd),
    fixed(x.embed),
    fixed(x.engine),
    fixed(x.summary, 2),
    fixed(x.overhead),
  ]);
  return [
    `**${d.backend}**, ${count(d.posts)} posts in the index, ${d.coldQueriesPerRun} cold queries per run, hybrid alpha ${d.hybridAlpha} (${when(s)})`,
    "",
    table(
      [
        "method",
        "protocol",
        "concurrency",
        "query cache",
        "calls/run",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "req/s",
        "goal / notes",
      ],
      rows,
    ),
    "",
    "Where a cold call's time goes (gRPC, concurrency 1, medians over fresh queries; embedding, engine and summary timed in the benchmark process with the same embedder, index settings and arguments as SearchCore; overhead = end-to-end minus the three, i.e. transport, auth, limits, usage metering and response mapping):",
    "",
    table(
      ["method", "queries", "end-to-end ms", "query embedding ms", "engine ms", "summary ms", "overhead ms"],
      split,
    ),
  ].join("\n");
}

function limitsSection(s: StoredSection<LimitsResult>): string {
  const d = s.data;
  const rows = d.rows.map((r) => {
    const ms = r.addedUs / 1000;
    const goal = r.name.startsWith("Redis")
      ? `<= ${GOALS.redisMs} ms: ${met(ms <= GOALS.redisMs)}`
      : r.name.startsWith("limits off")
        ? ""
        : `<= ${GOALS.memoryMs} ms: ${met(ms <= GOALS.memoryMs)}`;
    return [
      r.name,
      fixed(r.perCallUs),
      r.name.startsWith("limits off") ? "" : `${fixed(r.addedUs)} us = ${fixed(ms, 3)} ms`,
      r.name.startsWith("limits off") ? "" : r.addedUsPerRun.map((x) => fixed(x)).join(", "),
      goal,
    ];
  });
  return [
    `test/bench/limiter.ts run ${d.children} times (each: ${count(d.callsPerRun)} sequential calls per run, ${d.roundsPerChild} interleaved rounds, its own median); the table shows the median of those medians (${when(s)}).`,
    "",
    table(["configuration", "us per call", "added by the limiter", "added per child run (us)", "goal"], rows),
    "",
    "The call is a SemanticSearch through Connect's in-memory router transport to a handler that returns at once, with the",
    "limits interceptor (per-minute and quota limiters, consumed together) in front of it, against the same call with no",
    "interceptor: the smallest path a call can take. Usage metering is a no-op here, so only the limiter is measured.",
    "Redis is a real redis-server on loopback started by test/harness/redis.ts.",
  ].join("\n");
}

function machineLine(m: MachineInfo): string {
  return `${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, ${m.os}, Node ${m.node}`;
}

/**
 * The whole document for one data size: `tag` is "full" for the whole corpora or "pN" for a
 * smoke run with --posts N; sections of other sizes are left out.
 */
export function renderReport(tag = "full"): string {
  const all = loadResults();
  const keys = Object.keys(all)
    .filter((k) => k === "limits" || k.endsWith(`:${tag}`))
    .sort();
  const of = <T>(prefix: string): [string, StoredSection<T>][] =>
    keys.filter((k) => k.startsWith(prefix)).map((k) => [k, all[k] as StoredSection<T>]);
  const machines = [...new Set(keys.map((k) => machineLine(all[k]!.machine).replace(/, Node .*$/, "")))];
  const out: string[] = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (test/bench/run.ts) from the sections it has measured; nothing here is typed by hand.",
    "The measured sections are kept in docs/benchmarks.json; those measured before it was kept in the repository (2026-11-27)",
    "are carried over from the previous report as they stood (report-carry-over.ts): their lines name no processor.",
    "Re-run parts with `npm run bench -- --only ratio,reingest,ingest,copy,search,profile,protocol,floor,capacity,limits,scaling,insights,aggregate,filtered,export,sync --backend lancedb|weaviate|all [--posts N] [--rounds R] [--replica N]`; `--only report` rewrites this file from the stored sections.",
    "Each figure is a median over several runs in one session. **The machine is shared** (other engineers' tests and",
    "training ran alongside); every section states the load average when it started. Latencies and throughputs under",
    "a load several times the core count are far worse than on an idle machine; ratios measured with interleaved rounds",
    "(ingest ratio, limiter overhead) are less affected than absolute figures.",
    "",
    `- Written: ${new Date().toISOString()}`,
    machines.length > 0
      ? `- Machine${machines.length > 1 ? "s" : ""} of the stored sections: ${machines.join("; ")}`
      : "- Machine: (no section measured yet)",
    "- Keys: the service benchmark uses an `enterprise` key with a per-key override of 10,000,000 requests/minute, so the",
    "  rate limit never throttles it; every call still passes through authentication, both limiters and usage metering.",
    "- Loopback only. The service runs in its own process (test/bench/serve-child.ts, built by the test harness's",
    "  startService: the whole service on an ephemeral port, 2 embedder workers, log level warn); clients run in the",
    "  benchmark process.",
    "",
    ...summarySection(Object.fromEntries(keys.map((k) => [k, all[k] as StoredSection]))),
    "## Ingest",
    "",
    "### Embedder raw throughput vs the ingest pipeline",
    "",
    "A slice of the four corpora (the same number of posts from each) goes through the real pipeline (`ingestFile`: read,",
    "parse, embed, enrich, upsert, checkpoint, and the index's close, as `threadsight ingest` does) into a fresh index; the",
    "exact embed calls it made are then replayed straight into the same 2-worker USE-lite embedder. Rounds alternate raw and",
    "pipeline; the ratio is the pipeline's rate over the raw one (goal: at least 90%). Slices: `--ratio-posts`, default",
    "1000,4000; `--ratio-posts 240000 --rounds 1` takes the whole corpora (~93k posts). The pipeline is CPU-bound on 2 cores,",
    "so the figure depends on the machine: each row names its own. How it was reached (deferred bulk indexing, the id btree,",
    "enrichment costs, rounds on three machines): docs/decisions/0003-deferred-bulk-indexing.md and",
    "docs/decisions/0007-ingest-ratio.md.",
    "",
    ...ratioSections(of<RatioResult>("ingest-ratio:")),
    "### Re-ingesting the same files",
    "",
    "test/bench/reingest.ts: a slice into a fresh target, then the same files again into it, both timed to the index's close. The second",
    "pass finds every post stored with the same embedded text and the same fields, so it keeps the stored vectors and writes nothing",
    "(counted `unchanged`); until 2026-11-27 it embedded and wrote every post again, as slowly as the first. By hand on the Intel",
    "machine (2026-11-27), the whole corpora again into a copy of the kept 92,912-post index took 52.8 s (1,801 posts/s, 4 posts updated:",
    "their stored text predated the control-character clean-up), where the first ingest takes ~750 s.",
    "",
    ...of<ReingestResult>("reingest:").flatMap(([, s]) => [reingestSection(s.data, when(s)), ""]),
    "### All four corpora",
    "",
    "Each corpus file once through `ingestFile` (2 embedder workers, batches of the CLI's default size: 256 when the Weaviate run below was made, 1,024 since and in the LanceDB run) into the kept index.",
    "",
    ...of<FullIngest>("ingest-full:").flatMap(([, s]) => [fullSection(s), ""]),
    ...(of("ingest-full:weaviate").length === 0
      ? [
          "Not measured yet: no whole-corpora pipeline ingest into Weaviate for this data size (`npm run bench -- --only ingest --backend weaviate`); the ratio section above measures the pipeline into Weaviate on a slice.",
          "",
        ]
      : []),
    ...of<CopyResult>("copy:").flatMap(([, s]) => [copySection(s), ""]),
    "## Search latency",
    "",
    "SemanticSearch (hybrid + extractive summary) and VectorSearch, limit 10, over REST (fetch/undici, keep-alive) and gRPC",
    "(@grpc/grpc-js, one HTTP/2 connection). Cold: every query is new to the service, so its embedding is computed (queries",
    "are Qatar Living question subjects and titles from the SemEval-2016 data: real forum questions, none of them in the",
    "index). Warm: the same queries again (embedding cached). Concurrency 16: 16 callers over the cached queries.",
    "Since 2026-11-23 Weaviate returns just the hybrid page (it fuses each side's top 100, its own depth) instead of a",
    "200-candidate window cut by the service (src/index/weaviate/hybrid-window.ts): over 60 of these queries on the kept",
    "93k-post collection, in the benchmark process, a SemanticSearch hybrid with its page read went from 20.2 to 15.6 ms",
    "and FindLeads after the embedding from 25.2 to 20.5 ms (medians of 3 passes), and 86.3% of the semantic top 10 and",
    "85.7% of the FindLeads top 10 stayed the same (the rest moved with the shallower normalisation). The page then came",
    "with its posts' properties in that one call instead of a second call by id (FindLeads: its 30 candidates' lead-page",
    "properties, the 10 leads chosen from them). End to end over gRPC, test/bench/side-by-side.ts with the service before",
    "both changes (10c16d3) on the Weaviate insights collection (120 fresh queries per operation, each sent to both",
    "services in alternating order): FindLeads p50 32.5 -> 27.8 ms, SemanticSearch 26.4 -> 21.1 ms.",
    "Weaviate rows measured before that date ran the old way.",
    "",
    ...of<SearchResult>("search:").flatMap(([, s]) => [searchSection(s), ""]),
    "### Where a search's time goes, stage by stage",
    "",
    ...PROFILE_TEXT,
    "",
    ...of<ProfileResult>("profile:").flatMap(([, s]) => [profileSection(s), ""]),
    "## Performance against the engine floor",
    "",
    "### Protocol overhead",
    "",
    ...PROTOCOL_TEXT,
    "",
    ...of<ProtocolResult>("protocol:").flatMap(([, s]) => [protocolSection(s), ""]),
    "### Our overhead over the engine floor",
    "",
    ...FLOOR_TEXT,
    "",
    ...of<FloorResult>("floor:").flatMap(([, s]) => [floorSection(s), ""]),
    "### Capacity",
    "",
    ...CAPACITY_TEXT,
    "",
    ...of<CapacityResult>("capacity:").flatMap(([, s]) => [capacitySection(s), ""]),
    "## Limiter overhead",
    "",
    ...of<LimitsResult>("limits").flatMap(([, s]) => [limitsSection(s), ""]),
    "## Live sync",
    "",
    ...of<unknown>("sync:").flatMap(([, s]) => [syncSection(s), ""]),
    "## Insights: ListTrends and FindLeads",
    "",
    ...INSIGHTS_TEXT,
    "",
    ...of<InsightsResult>("insights:").flatMap(([, s]) => [insightsSection(s), ""]),
    "### Topic rebuild: searches while every post is re-tagged",
    "",
    ...RETAG_TEXT,
    "",
    "## AggregatePosts: a one-year weekly histogram",
    "",
    ...AGGREGATE_TEXT,
    "",
    ...(of("aggregate:").length === 0
      ? ["Not measured yet for this data size (`npm run bench -- --only aggregate --backend lancedb`).", ""]
      : of<AggregateBenchResult>("aggregate:").flatMap(([, s]) => [aggregateSection(s), ""])),
    "## Filtered search against unfiltered",
    "",
    ...FILTERED_TEXT,
    "",
    ...(of("filtered:").length === 0
      ? ["Not measured yet for this data size (`npm run bench -- --only filtered`).", ""]
      : of<FilteredResult>("filtered:").flatMap(([, s]) => [filteredSection(s), ""])),
    "## ExportPosts: throughput and memory",
    "",
    ...EXPORT_TEXT,
    "",
    ...(of("export:").length === 0
      ? ["Not measured yet for this data size (`npm run bench -- --only export`).", ""]
      : of<ExportResult>("export:").flatMap(([, s]) => [exportSection(s), ""])),
    "## Scaling",
    "",
    ...renderScaling(of<ScalingRow>("scaling:")),
  ];
  return out.join("\n");
}

/**
 * Writes docs/BENCHMARKS.md. Sections of the current report that `text` lacks (the results store
 * has no data for them: measured on another machine before the store was kept in the repository)
 * are carried over as they stand (report-carry-over.ts); should any still be missing, nothing is
 * written, since those figures may not be reproducible on this machine. `dropMissing` writes
 * `text` as it is.
 */
export function writeReport(
  fresh: string,
  dropMissing = false,
  file = path.join(PACKAGE_ROOT, "docs", "BENCHMARKS.md"),
): string {
  let text = fresh;
  if (!dropMissing && existsSync(file)) {
    const current = readFileSync(file, "utf8");
    text = carryOver(fresh, current);
    const now = measuredSections(text);
    const lost = [...measuredSections(current)].filter((s) => !now.has(s));
    if (lost.length > 0) {
      throw new Error(
        `not writing ${file}: the results store (${RESULTS_FILE}) lacks ${lost.length} section(s) the report has: ${lost.join("; ")}. ` +
          "Measure them again, or pass --drop-missing to write without them (--no-write prints the report).",
      );
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
