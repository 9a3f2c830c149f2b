/**
 * Re-ingest benchmark: a slice of the four corpora into a fresh target, then the same files
 * again into it, each pass timed to the index's close as `threadsight ingest` runs. The second
 * pass finds every post stored with the same text, so it embeds nothing and writes nothing
 * (pipeline.ts, rollup-index.ts); what it measures is what a refreshed dump with few changes
 * costs: reading, parsing, looking the stored versions up and enriching. Rounds use a new target
 * each, so both passes of every round start alike.
 */
import { mkdtempSync } from "node:fs";
import path from "node:path";
import { DEFAULT_BATCH_SIZE } from "../../src/cli/ingest.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import type { IngestStats } from "../../src/ingest/ingest-stats.js";
import { addStats, emptyStats, formatStats } from "../../src/ingest/ingest-stats.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { CORPORA_FILES, corpusPath } from "./corpora.js";
import { scratchMaker } from "./ingest.js";
import { median, msSince } from "./stats.js";

/** What the re-ingest part stores. */
export interface ReingestResult {
  backend: string;
  /** Posts per pass. */
  posts: number;
  rounds: number;
  firstPerS: number[];
  againPerS: number[];
  medianFirst: number;
  medianAgain: number;
  /** Median over rounds of again / first. */
  medianSpeedup: number;
  /** The last round's second pass: its counts and the texts it embedded. */
  againStats: IngestStats;
  againEmbedded: number;
}

/** One pass over the slice into `target`: posts, milliseconds to the close, counts, texts embedded. */
async function pass(
  target: BackendTarget,
  embedder: Embedder,
  perCorpus: number,
): Promise<{ posts: number; ms: number; stats: IngestStats; embedded: number }> {
  let embedded = 0;
  const counting: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => {},
    embed: (texts, signal) => ((embedded += texts.length), embedder.embed(texts, signal)),
  };
  const index = await indexFor(target, { indexing: "auto" });
  const enricher = await createIngestEnricher(target.dataDir, embedder);
  try {
    await index.open(embedder.model, embedder.dimensions);
    const stats = emptyStats();
    let posts = 0;
    const t0 = process.hrtime.bigint();
    // Checkpoints of its own: a slice stops each file at its limit, and a shared checkpoint would
    // send the second pass on to the records after it instead of over the same ones again.
    const checkpoints = new CheckpointStore(mkdtempSync(path.join(target.dataDir, "pass-")));
    await ingestFiles(
      CORPORA_FILES.map(corpusPath),
      { batchSize: DEFAULT_BATCH_SIZE, fileLimit: perCorpus },
      { index, embedder: counting, enricher, checkpoints, log: () => {} },
      (outcome) => {
        if ("error" in outcome) throw outcome.error;
        posts += outcome.result.postsThisRun;
        addStats(stats, outcome.result.stats);
      },
    );
    await index.close();
    return { posts, ms: msSince(t0), stats, embedded };
  } finally {
    await index.close();
    await enricher.close();
  }
}

/** Measures a first ingest of `posts` posts (a quarter from each corpus) against the same files again. */
export async function measureReingest(
  base: BackendTarget,
  posts: number,
  rounds: number,
  log: (s: string) => void,
): Promise<ReingestResult> {
  const embedder = await startUseEmbedder(2);
  try {
    const perCorpus = Math.max(1, Math.floor(posts / CORPORA_FILES.length));
    const make = scratchMaker(base);
    const firstPerS: number[] = [];
    const againPerS: number[] = [];
    const speedups: number[] = [];
    let last: Awaited<ReturnType<typeof pass>> | undefined;
    // A warm-up pass loads the encoder's kernels, as the ratio part's does.
    const warm = await make();
    try {
      await pass(warm.target, embedder, Math.min(perCorpus, 50));
    } finally {
      await warm.cleanup();
    }
    for (let r = 0; r < rounds; r++) {
      const { target, cleanup } = await make();
      try {
        const first = await pass(target, embedder, perCorpus);
        const again = await pass(target, embedder, perCorpus);
        if (again.posts !== first.posts || again.stats.inserted > 0)
          throw new Error(
            `the second pass read ${again.posts} posts (${again.stats.inserted} new), the first ${first.posts}`,
          );
        const a = first.posts / (first.ms / 1000);
        const b = again.posts / (again.ms / 1000);
        firstPerS.push(a);
        againPerS.push(b);
        speedups.push(b / a);
        last = again;
        log(
          `reingest ${base.backend} round ${r + 1}/${rounds}: first ${a.toFixed(1)} posts/s, again ${b.toFixed(1)} posts/s (x${(b / a).toFixed(1)}; unchanged ${again.stats.unchanged}, embedded ${again.embedded})`,
        );
      } finally {
        await cleanup();
      }
    }
    return {
      backend: base.backend,
      posts: last?.posts ?? 0,
      rounds,
      firstPerS,
      againPerS,
      medianFirst: median(firstPerS),
      medianAgain: median(againPerS),
      medianSpeedup: median(speedups),
      againStats: last?.stats ?? emptyStats(),
      againEmbedded: last?.embedded ?? 0,
    };
  } finally {
    await embedder.close();
  }
}

/** The report's section for stored re-ingest results. */
export function reingestSection(d: ReingestResult, when: string): string {
  const fmt = (x: number): string => x.toFixed(1);
  return [
    `**${d.backend}**, ${d.posts.toLocaleString("en-US")} posts per pass (the first ${Math.floor(d.posts / CORPORA_FILES.length).toLocaleString("en-US")} of each corpus file), ${d.rounds} rounds (${when})`,
    "",
    "| first ingest (posts/s, median) | same files again (posts/s, median) | speed-up (median of rounds) | per-round first / again | second pass of the last round |",
    "| --- | --- | --- | --- | --- |",
    `| ${fmt(d.medianFirst)} | ${fmt(d.medianAgain)} | ${fmt(d.medianSpeedup)}x | ${d.firstPerS.map((x, i) => `${fmt(x)} / ${fmt(d.againPerS[i]!)}`).join(", ")} | ${formatStats(d.againStats)}; ${d.againEmbedded} texts embedded |`,
  ].join("\n");
}
