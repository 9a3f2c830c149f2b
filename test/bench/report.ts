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
import type { CopyResult } from "./copy-index.js";
import type { FullIngest, RatioResult } from "./ingest.js";
import type { LimitsResult } from "./limits.js";
import { measuredWhen } from "./machine.js";
import type { MachineInfo } from "./machine.js";
import { loadResults, RESULTS_FILE } from "./results-store.js";
import type { StoredSection } from "./results-store.js";
import { carryOver, measuredSections } from "./report-carry-over.js";
import { renderScaling } from "./scaling.js";
import type { ScalingRow } from "./scaling.js";
import { storedVectorsNote } from "./stored-vectors.js";
import type { SearchResult } from "./search.js";
import { CAPACITY_TEXT, capacitySection, FLOOR_TEXT, floorSection, PROFILE_TEXT, profileSection, PROTOCOL_TEXT, protocolSection } from "./report-performance.js";
import type { CapacityResult } from "./capacity.js";
import type { FloorResult } from "./floor.js";
import { summarySection } from "./report-summary.js";
import type { ProfileResult } from "./search-profile.js";
import type { ProtocolResult } from "./protocol.js";
import { RETAG_TEXT } from "./retag-report.js";
import { reingestSection } from "./reingest.js";
import type { ReingestResult } from "./reingest.js";
import { INSIGHTS_TEXT, insightsSection } from "./insights.js";
import type { InsightsResult } from "./insights.js";
import { count, fixed } from "./stats.js";

const GOALS = { ratio: 0.9, semanticP50: 30, vectorP50: 25, memoryMs: 0.2, redisMs: 1 };

const met = (ok: boolean): string => (ok ? "met" : "**not met**");
const when = (s: StoredSection): string => measuredWhen(s.machine, s.durationS);

/** When the pipeline's index did its index work (src/index/lancedb-maintenance.ts). */
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
        ["posts in slice", "rounds", "index upkeep", "embedder raw (texts/s, median)", "pipeline end-to-end (posts/s, median)", "ratio (median of per-round ratios)", `goal >= ${GOALS.ratio * 100}%`],
        list.map(([, s]) => [count(s.data.posts), String(s.data.rounds), upkeepOf(s.data), fixed(s.data.medianRaw), fixed(s.data.medianPipeline), `${fixed(100 * s.data.medianRatio)}%`, met(s.data.medianRatio >= GOALS.ratio)]),
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
    const reasons = SKIP_REASONS.filter((r) => c.stats.skipped[r] > 0).map((r) => `${r} ${c.stats.skipped[r]}`).join(", ");
    const complete = c.stats.read === c.sourceRows;
    const expected = c.sourceRows - skipped - c.stats.failed;
    const check = !complete ? `partial: ${count(c.stats.read)} of ${count(c.sourceRows)} rows read` : c.indexCount === expected ? "complete: index = rows - skips" : `**mismatch** (expected ${count(expected)})`;
    const rate = c.reused ? "(earlier run)" : fixed(c.postsThisRun / Math.max(c.seconds, 1e-9));
    return [c.name, count(c.sourceRows), count(c.stats.read), count(c.stats.inserted), count(c.stats.updated), count(c.stats.failed), `${count(skipped)}${reasons ? ` (${reasons})` : ""}`, count(c.indexCount), check, fixed(c.seconds, 0), rate];
  });
  const fresh = d.corpora.filter((c) => !c.reused);
  const posts = fresh.reduce((a, c) => a + c.postsThisRun, 0);
  const secs = fresh.reduce((a, c) => a + c.seconds, 0);
  const reused = d.corpora.filter((c) => c.reused).map((c) => c.name);
  return [
    `**${d.backend}**, ${d.limitPerCorpus === undefined ? "whole corpora" : `at most ${d.limitPerCorpus} posts per corpus`} (${when(s)})`,
    "",
    table(["corpus", "source rows", "read", "inserted", "updated", "failed", "skipped", "in index", "check", "seconds", "posts/s"], rows),
    "",
    `This run: ${count(posts)} posts in ${fixed(secs, 0)} s = ${fixed(posts / Math.max(secs, 1e-9))} posts/s; index total ${count(d.indexTotal)}.` +
      (reused.length > 0 ? ` Reused from an earlier run (not re-timed): ${reused.join(", ")}.` : "") +
      (fresh.some((c) => c.resumedFrom > 0) ? " Some corpora resumed from a checkpoint; their rate covers this run's part only." : ""),
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
    .sort((a, b) => a.method.localeCompare(b.method) || b.cache.localeCompare(a.cache) || a.concurrency - b.concurrency || a.protocol.localeCompare(b.protocol))
    .map((r) => {
      const goalMs = r.method === "semantic" ? GOALS.semanticP50 : GOALS.vectorP50;
      const goal = d.backend === "lancedb" && r.concurrency === 1 && r.cache === "cold" ? `p50 <= ${goalMs} ms: ${met(r.p50 <= goalMs)}` : "";
      const notes = [goal, r.anyCapped ? "time cap hit" : "", r.errors > 0 ? `${r.errors} failed calls, e.g. ${r.firstError ?? ""}` : ""].filter(Boolean).join("; ");
      return [r.method, r.protocol, String(r.concurrency), r.cache, String(r.callsPerRun), fixed(r.p50), fixed(r.p95), fixed(r.p99), fixed(r.rps), notes];
    });
  const split = d.split.map((x) => [x.method, String(x.queries), fixed(x.endToEnd), fixed(x.embed), fixed(x.engine), fixed(x.summary, 2), fixed(x.overhead)]);
  return [
    `**${d.backend}**, ${count(d.posts)} posts in the index, ${d.coldQueriesPerRun} cold queries per run, hybrid alpha ${d.hybridAlpha} (${when(s)})`,
    "",
    table(["method", "protocol", "concurrency", "query cache", "calls/run", "p50 ms", "p95 ms", "p99 ms", "req/s", "goal / notes"], rows),
    "",
    "Where a cold call's time goes (gRPC, concurrency 1, medians over fresh queries; embedding, engine and summary timed in the benchmark process with the same embedder, index settings and arguments as SearchCore; overhead = end-to-end minus the three, i.e. transport, auth, limits, usage metering and response mapping):",
    "",
    table(["method", "queries", "end-to-end ms", "query embedding ms", "engine ms", "summary ms", "overhead ms"], split),
  ].join("\n");
}

function limitsSection(s: StoredSection<LimitsResult>): string {
  const d = s.data;
  const rows = d.rows.map((r) => {
    const ms = r.addedUs / 1000;
    const goal = r.name.startsWith("Redis") ? `<= ${GOALS.redisMs} ms: ${met(ms <= GOALS.redisMs)}` : r.name.startsWith("limits off") ? "" : `<= ${GOALS.memoryMs} ms: ${met(ms <= GOALS.memoryMs)}`;
    return [r.name, fixed(r.perCallUs), r.name.startsWith("limits off") ? "" : `${fixed(r.addedUs)} us = ${fixed(ms, 3)} ms`, r.name.startsWith("limits off") ? "" : r.addedUsPerRun.map((x) => fixed(x)).join(", "), goal];
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
  const of = <T>(prefix: string): [string, StoredSection<T>][] => keys.filter((k) => k.startsWith(prefix)).map((k) => [k, all[k] as StoredSection<T>]);
  const machines = [...new Set(keys.map((k) => machineLine(all[k]!.machine).replace(/, Node .*$/, "")))];
  const out: string[] = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (test/bench/run.ts) from the sections it has measured; nothing here is typed by hand.",
    "The measured sections are kept in docs/benchmarks.json; those measured before it was kept in the repository (2026-11-27)",
    "are carried over from the previous report as they stood (report-carry-over.ts): their lines name no processor.",
    "Re-run parts with `npm run bench -- --only ratio,reingest,ingest,copy,search,profile,protocol,floor,capacity,limits,scaling,insights --backend lancedb|weaviate|all [--posts N] [--rounds R]`; `--only report` rewrites this file from the stored sections.",
    "Each figure is a median over several runs in one session. **The machine is shared** (other engineers' tests and",
    "training ran alongside); every section states the load average when it started. Latencies and throughputs under",
    "a load several times the core count are far worse than on an idle machine; ratios measured with interleaved rounds",
    "(ingest ratio, limiter overhead) are less affected than absolute figures.",
    "",
    `- Written: ${new Date().toISOString()}`,
    machines.length > 0 ? `- Machine${machines.length > 1 ? "s" : ""} of the stored sections: ${machines.join("; ")}` : "- Machine: (no section measured yet)",
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
    "parse, embed, enrichment as `threadsight ingest` does it (sentiment, leads, topic), upsert, checkpoint, and closing the index, which waits for its background upkeep and indexes the last rows, as the command does before it exits) into a fresh index; the exact embed calls it made are replayed",
    "straight into the same 2-worker USE-lite embedder, all queued at once. Rounds alternate raw and pipeline.",
    "Slices (`--ratio-posts`, default 1000,4000): the first 250 rows of each corpus file, where a round lasts a few",
    "seconds and the per-run costs (filling and draining the pipeline, the fresh index's first write building its scalar",
    "and full-text indexes) are a visible share of it, and the first 1,000. A size of four times the largest corpus or",
    "more takes every file whole: the ~93k posts themselves, a round of about a quarter of an hour each way, so it is run",
    "on its own (`--ratio-posts 240000 --rounds 1`). The slices' texts differ in length (the 4,000-post slice's are",
    "longer on average than the 1,000's, hence its lower raw rate); each ratio compares the pipeline with the raw",
    "embedder on its own slice's calls. The whole corpora",
    "run below the 4,000-post slice because the embedded index's upkeep grows with the table: from 20,000 rows it trains",
    "its vector index and then, in the background, folds new rows into it and into the full-text indexes",
    "every 20% of the table (src/index/lancedb-maintenance.ts); that CPU comes out of the encoder's two cores.",
    "`test/bench/ingest-upkeep.ts` measures the upkeep alone (a stand-in embedder, with and without the vector index):",
    "LanceDB's CPU over the whole corpora fell from ~79 to ~50 s (ingesting + final optimize) once new posts were appended",
    "and only posts already stored merged by id (src/index/lancedb-index.ts), since a merge joins each batch against every stored id.",
    "That stand-in outruns the upkeep, so its optimize runs overlap and merge; with the real encoder they come as often as the",
    "share asks, and each costs about the whole table (LanceDB compacts every fragment below its million-row target, then",
    "remaps every index): `ingest-cpu-split.ts` over the whole corpora counted 33 runs during the ingest at 5% of the table with 256-post batches",
    "(LanceDB CPU 74 s of the run's 773 s up to its last write) and 13 at 20% with 1,024-post batches, the defaults since (50 s of 750 s); the final optimize after them took 3.4 and 7.2 s.",
    "One round of the whole corpora cannot resolve a change of that size: its ratio has ranged from 85% to 90% over",
    "single rounds (the raw replay alone moved between 271 and 289 texts/s from run to run); the CPU per thread can.",
    "The rows below are timed to the index's close (since 2026-11-23); earlier runs, those of that range among them, stopped the clock before it.",
    "The pipeline is CPU-bound on 2 cores: the encoder workers use the same CPU as in the raw replay, and everything else",
    "(parsing, enrichment and row building on the main thread; the engine's own work) comes out of the same two cores.",
    "Into Weaviate that includes the server's indexing of each object (HNSW insert, inverted indexes), which is why its",
    "ratio is lower; `test/bench/ingest-cpu-split.ts` shows the CPU per thread and, with BACKEND=weaviate, the server's.",
    "On the Intel machine (2026-11-24, BACKEND=weaviate, 1,500 posts of each corpus, two rounds): the pipeline took 21.7",
    "and 21.3 s against raw replays of 16.9 and 15.6 s (78% and 73%), with 4.0 and 4.1 s of the server's CPU and 2.7 and",
    "2.4 s of the main thread's; and beside the server the encoder workers themselves spent 4-11% more CPU on the same",
    "texts than in the replays (34.8 and 34.1 s against 33.3 and 30.8), where beside LanceDB they spend the same (below).",
    "The figure also depends on the machine: the LanceDB slices below ran on an Intel Xeon @ 2.50GHz (2026-11-27/28), the",
    "whole-corpora LanceDB row and the Weaviate rows on an AMD EPYC (2 cores); each paragraph here names its machine. On another Intel Xeon (2 cores,",
    "2026-11-23 20:24 UTC, one round, whole corpora, not kept in the results store) the encoder ran 1.7x faster (raw",
    "472.7 texts/s) and the pipeline reached 372.2 posts/s, 78.7%: the costs besides the encoder (parsing, enrichment,",
    "LanceDB's upkeep) stayed about the same in seconds (the pipeline took 54 s more than the raw replay there, 57 s on",
    "the AMD machine), so they weigh more beside a faster encoder.",
    "Bulk loads (src/index/lancedb-maintenance.ts) do no index work while writing and fold every post in, and train the",
    "vector index once, at the close; since 2026-11-24 that is what `threadsight ingest` does by default while no",
    "`threadsight serve` reads the data directory (src/index/lancedb-readers.ts; a server starting mid-load turns the",
    "upkeep back on from the next batch), `--defer-indexing` forces it and `--live-indexing` turns it off. The pipeline above",
    "opens its scratch index as the command does, so the table's rows from that date on are deferred runs; the earlier",
    "rows kept the indexes current while writing. `ingest-cpu-split.ts` over the whole corpora on the",
    "Intel machine (2026-11-24, one round each, a slower day for its encoder: raw 395 texts/s): keeping them current the pipeline took",
    "285.4 s against the raw replay's 235.2 s (82.4%), CPU by thread: encoder workers 479 s, LanceDB 54 s, main thread",
    "28 s; deferred 280.2 s (about 83.9% of that replay; its own replay was disturbed by other work and is not used),",
    "encoder 483 s, LanceDB 22 s, main 27 s, the close 9.9 s instead of 6.9 s. So deferring takes 32 s of CPU off the",
    "encoder's cores but, in these single rounds, only ~5 s off the wall time.",
    "The main thread's 27 s is parsing, row building and enrichment (`test/bench/enrich-profile.ts`: ~0.1-0.2 ms a post, most of",
    "it the lead rules, spread over many patterns with no single hot spot).",
    "Since then a deferred writer keeps one index current while writing: the `id` btree every upsert's look-up uses, which",
    "had covered only the first batch, so each look-up scanned every row written after it, quadratic over a load",
    "(`test/bench/bulk-upsert.ts`, Intel machine, 500 batches of 1,024 synthetic rows: the last upserts 478 -> 70 ms each,",
    "all 500 122 -> 28 s; `ingest-upkeep.ts` deferred, whole corpora, stand-in embedder, two rounds each: LanceDB's CPU",
    "while ingesting 6.5 and 7.0 -> 3.8 and 3.6 s). With it, `ingest-cpu-split.ts` over the whole corpora on the Intel machine",
    "(2026-11-24 12:50-13:42 UTC, three rounds per mode, each against its own raw replay, which moved between 197 and 226 s",
    "from round to round): deferred 97.1%, 89.7% and 92.2% (median **92.2%**), LanceDB CPU 12.7-13.7 s; kept current 79.2%,",
    "84.8% and 82.8% (median 82.8%), LanceDB CPU 53-56 s. Then the ratio part itself with the new default (same machine,",
    "2026-11-24, `--ratio-posts 240000 --rounds 3`, twice, not kept in the results store, whose other rows ran on the AMD",
    "machine): at 14:42 UTC raw 436.4, 483.5 and 433.3 texts/s, pipeline 393.6, 416.6 and 386.6 posts/s: 90.2%, 86.2% and",
    "89.2% (median 89.2%); at 15:19 UTC raw 451.6, 446.1 and 427.3, pipeline 377.7, 367.8 and 391.5: 83.6%, 82.4% and",
    "91.6% (median 83.6%). Over the nine deferred rounds of that day the ratio ranged from 82% to 97%, median **89.7%**,",
    "against 79-85% (median 82.8%) for the three that kept the indexes current: deferring is the better default, and it",
    "leaves the goal at the edge of this machine's noise. What is left besides the encoder is the main thread's ~27 s",
    "and the close's ~7 s (compaction, full-text and scalar indexes over every post, the vector index's training), which",
    "weigh more the faster the encoder runs.",
    "A third run of the ratio part (same machine, 2026-11-24 18:58-19:23 UTC): raw 452.5, 447.2 and 479.4 texts/s,",
    "pipeline 401.6, 410.5 and 402.0 posts/s: 88.8%, 91.8% and 83.9%; over all twelve deferred rounds, median **89.5%** (89.2 and 89.7 the middle two).",
    "In that run the pipeline's rate moved by 2% from round to round, the raw replay's by 7%.",
    "On the AMD EPYC machine of the table below (2026-11-24 20:50-21:27 UTC, the same command; its whole-corpora row):",
    "raw 294.1, 305.3 and 296.3 texts/s, pipeline 278.4, 283.6 and 284.2 posts/s: 94.6%, 92.9% and 95.9% (median **94.6%**,",
    "every round over 90%), where one round that kept the indexes current while writing had reached 85.7% (2026-11-23, the",
    "row this one replaces). Beside an encoder about 1.5x slower than the Intel machine's, the same costs besides it weigh",
    "less: the goal holds on this machine and sits at the edge of the noise on the faster one.",
    "The slices there too (22:34-22:42 UTC, five rounds each): LanceDB 84.2% at 1,000 posts, where the close's index",
    "builds weigh most in rounds of ~4 s, and 90.9% at 4,000; into Weaviate 75.1% and 84.9% (in the table).",
    "On a third machine, the Intel Xeon @ 2.50GHz of the LanceDB rows (2026-11-27 16:53-17:32 UTC, the same command):",
    "raw 297.8, 301.7 and 307.8 texts/s, pipeline 260.6, 275.4 and 254.0 posts/s: 87.5%, 91.3% and 82.5% (median",
    "**87.5%**, not met). Its encoder runs at the AMD machine's speed, yet the pipeline keeps less of it there (94.6%):",
    "the rounds' spread (82-91%) is as wide as the first Intel machine's. Its slices: 83.6% at 1,000 posts, 90.2% at 4,000.",
    "One round of `ingest-cpu-split.ts` there afterwards (whole corpora, deferred, 18:06 UTC): the pipeline took 346.5 s to its close against",
    "the raw replay's 304.0 s (87.7%), CPU-bound throughout (680.8 s of CPU in 346.5 s on 2 cores): encoder workers 623.7 s",
    "(601.5 s alone: 3.7% more beside the rest), main thread 38.5 s (27-28 s on the first Intel machine), LanceDB 18.4 s,",
    "the close 10.0 s. On this machine the goal would need nearly half of the main thread's parsing and enrichment gone.",
    "Moving enrichment into the encoder workers would not help: on a 12,000-post slice (`ingest-cpu-split.ts`, PER=3000,",
    "its second round) the workers spent 52.8 s of CPU in the pipeline and 52.7 s in the raw replay, so sharing the cores",
    "with the main thread costs the encoder nothing beyond the CPU the main thread takes (in the first round, the encoder's first work in that process, 58.9 against 55.3 s). Of that main thread, a profile of",
    "the whole corpora through the stand-in ingest (`ingest-upkeep.ts`, deferred: 19.7-21.0 s) puts ~61% in enrichment",
    "(the lead rules ~47%, the sentiment model ~12%), the rest in parsing, markdown clean-up, row building and garbage collection.",
    "The same command on that machine on 2026-11-28 (13:07-13:45 UTC, load 0.7 at start; the whole-corpora row of the",
    "table until 2026-11-29), after the softmax models' standardisation was folded into their weights (enrichment 222 -> 209 us a post,",
    "the same answers): raw 308.0, 305.0 and 306.5 texts/s, pipeline 272.6, 272.3 and 272.0 posts/s: 88.5%, 89.3% and",
    "88.8% (median **88.8%**, not met). The pipeline's rounds agreed within 0.2% this time, where the day before they",
    "spread over 8%; the fold saves about 1.2 s of the main thread's CPU, too little to tell apart from that spread.",
    "The same code again on an AMD EPYC (2026-11-29 02:08-02:46 UTC, load 1.2-1.9 at start; the whole-corpora row of the",
    "table): 91.4%, 94.1% and 90.6% (median **91.4%**, every round over 90%), as on the AMD machine of 2026-11-24. So the",
    "goal holds on the AMD machines and misses by 1-2 points on the Intel Xeon @ 2.50GHz, whose main thread costs more.",
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
      ? ["Not measured yet: no whole-corpora pipeline ingest into Weaviate for this data size (`npm run bench -- --only ingest --backend weaviate`); the ratio section above measures the pipeline into Weaviate on a slice.", ""]
      : []),
    ...of<CopyResult>("copy:").flatMap(([, s]) => [copySection(s), ""]),
    "## Search latency",
    "",
    "SemanticSearch (hybrid + extractive summary) and VectorSearch, limit 10, over REST (fetch/undici, keep-alive) and gRPC",
    "(@grpc/grpc-js, one HTTP/2 connection). Cold: every query is new to the service, so its embedding is computed (queries",
    "are Qatar Living question subjects and titles from the SemEval-2016 data: real forum questions, none of them in the",
    "index). Warm: the same queries again (embedding cached). Concurrency 16: 16 callers over the cached queries.",
    "Since 2026-11-23 Weaviate returns just the hybrid page (it fuses each side's top 100, its own depth) instead of a",
    "200-candidate window cut by the service (src/index/weaviate-hybrid-window.ts): over 60 of these queries on the kept",
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
    "## Insights: ListTrends and FindLeads",
    "",
    ...INSIGHTS_TEXT,
    "",
    ...of<InsightsResult>("insights:").flatMap(([, s]) => [insightsSection(s), ""]),
    "### Topic rebuild: searches while every post is re-tagged",
    "",
    ...RETAG_TEXT,
    "",
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
export function writeReport(fresh: string, dropMissing = false, file = path.join(PACKAGE_ROOT, "docs", "BENCHMARKS.md")): string {
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
