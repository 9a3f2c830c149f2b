/**
 * Rough numbers for the two adapters (not the benchmark: that is test/bench/ with real posts
 * and the real encoder). Upserts N synthetic posts with 512-dimension vectors in batches, then
 * times keyword, nearVector and hybrid queries (limit 10) one at a time.
 *   node --import tsx test/index/measure.ts [lancedb|weaviate|all] [posts=10000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { WeaviateIndex } from "../../src/index/weaviate/weaviate-index.js";
import { startWeaviate } from "../harness/weaviate.js";
import { embed, randomPosts } from "./synthetic.js";

const DIMS = 512;
const BATCH = 500;
const QUERIES = 60;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Writes with one client, closes it, and queries with a fresh one, as ingest and serve do. */
async function measure(label: string, create: () => SearchIndex, n: number): Promise<void> {
  const writer = create();
  await writer.open("measure-512", DIMS);
  const posts = randomPosts(n, 3, "m").map((p) => ({ ...p, vector: embed(`${p.title} ${p.content}`, DIMS) }));
  const t0 = performance.now();
  for (let i = 0; i < posts.length; i += BATCH) await writer.upsert(posts.slice(i, i + BATCH));
  await writer.close();
  const secs = (performance.now() - t0) / 1000;
  const index = create();
  await index.open("measure-512", DIMS);
  console.log(
    `${label}: upsert ${n} posts (and close) in ${secs.toFixed(1)} s = ${Math.round(n / secs)} posts/s (batches of ${BATCH})`,
  );
  const texts = posts.slice(0, QUERIES).map((p) => p.title);
  const kinds: [string, (t: string) => Promise<unknown>][] = [
    ["keyword", (t) => index.keyword({ text: t, limit: 10, offset: 0 })],
    ["nearVector", (t) => index.nearVector({ vector: embed(t, DIMS), limit: 10, offset: 0 })],
    [
      "nearVector+filter",
      (t) =>
        index.nearVector({
          vector: embed(t, DIMS),
          limit: 10,
          offset: 0,
          filter: { subforums: ["sub1"], createdFrom: Date.UTC(2023, 5, 1) },
        }),
    ],
    ["hybrid", (t) => index.hybrid({ text: t, vector: embed(t, DIMS), alpha: 0.5, limit: 10, offset: 0 })],
  ];
  for (const [kind, q] of kinds) {
    await q(texts[0]!);
    const times: number[] = [];
    for (const t of texts) {
      const s = performance.now();
      await q(t);
      times.push(performance.now() - s);
    }
    console.log(
      `${label}: ${kind.padEnd(18)} p50 ${pct(times, 50).toFixed(1)} ms  p95 ${pct(times, 95).toFixed(1)} ms  (${QUERIES} queries)`,
    );
  }
  await index.close();
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? "all";
  const n = Number(process.argv[3] ?? 10_000);
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, node ${process.version}`);
  if (which === "all" || which === "lancedb") {
    const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-measure-"));
    try {
      await measure("lancedb (brute force)", () => new LanceDbIndex({ dir }), n);
      const dir2 = path.join(dir, "ivf");
      await measure(
        "lancedb (IVF_PQ)",
        () => new LanceDbIndex({ dir: dir2, vectorIndexMinRows: Math.min(n, 5000) }),
        n,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (which === "all" || which === "weaviate") {
    const server = await startWeaviate();
    try {
      const options = {
        httpUrl: server.httpUrl,
        grpcUrl: server.grpcUrl,
        collection: "Measure",
        replicationFactor: 1,
        shards: 1,
        consistency: "QUORUM" as const,
        fusion: "relativeScore" as const,
      };
      await measure("weaviate", () => new WeaviateIndex(options), n);
    } finally {
      await server.stop();
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
