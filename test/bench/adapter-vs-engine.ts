/**
 * What the index adapters add to the engine: the same fresh queries through the adapter
 * (SearchIndex.hybrid / nearVector, as SearchCore calls them for a first page of 10) and through
 * the engine floor's raw queries (engine-floor.ts), in one process, alternating which goes first,
 * query embeddings computed beforehand. The floor ratio (floor.ts) puts everything above the raw
 * engine under "ours"; this splits off the adapter's share, so what remains is the service's
 * layers and the transport. Run on the kept benchmark index or collection:
 *
 *   node --import tsx test/bench/adapter-vs-engine.ts lancedb|weaviate [queries]
 */
import { loadConfig } from "../../src/config.js";
import { startUseEmbedder, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import type { Backend } from "./backends.js";
import { indexFor, targetFor } from "./backends.js";
import { openEngineFloor, PAGE } from "./engine-floor.js";
import { loadBenchQueries } from "./search-queries.js";
import { median, msSince } from "./stats.js";
import { startBenchWeaviate } from "./weaviate-server.js";

/** Calls before timing starts (connections, caches, JIT). */
const WARMUP = 10;

const backend = process.argv[2] as Backend;
if (backend !== "lancedb" && backend !== "weaviate")
  throw new Error("usage: adapter-vs-engine.ts lancedb|weaviate [queries]");
const n = Number(process.argv[3] ?? 160);
const weaviate = backend === "weaviate" ? await startBenchWeaviate() : undefined;
const target = targetFor(backend, "full", weaviate);
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
const index = await indexFor(target);
await index.open(USE_MODEL_ID, 512);
const engine = await openEngineFloor(config);
const embedder = await startUseEmbedder(config.embedWorkers);
try {
  const queries = loadBenchQueries().slice(0, n);
  const vectors = await embedder.embed(queries);
  const times = {
    adapterHybrid: [] as number[],
    engineHybrid: [] as number[],
    adapterVector: [] as number[],
    engineVector: [] as number[],
  };
  const timed = async (into: number[], f: () => Promise<unknown>): Promise<void> => {
    const t = process.hrtime.bigint();
    await f();
    into.push(msSince(t));
  };
  for (const [i, text] of queries.entries()) {
    const vector = vectors[i]!;
    const adapter = async (): Promise<void> => {
      await timed(times.adapterHybrid, () =>
        index.hybrid({
          text,
          vector: Promise.resolve(vector),
          alpha: config.hybridAlpha,
          limit: PAGE,
          offset: 0,
          fields: "result",
          filter: {},
        }),
      );
      await timed(times.adapterVector, () =>
        index.nearVector({ vector: Promise.resolve(vector), limit: PAGE, offset: 0, fields: "result", filter: {} }),
      );
    };
    const raw = async (): Promise<void> => {
      await timed(times.engineHybrid, () => engine.semantic(text, vector));
      await timed(times.engineVector, () => engine.vector(vector));
    };
    // Whichever goes second finds the engine's caches warm for that query.
    if (i % 2 === 0) await adapter().then(raw);
    else await raw().then(adapter);
  }
  const m = (a: number[]): string => median(a.slice(WARMUP)).toFixed(2);
  console.log(`${backend}, ${queries.length - WARMUP} fresh queries (medians, ms):`);
  console.log(`  hybrid page:  adapter ${m(times.adapterHybrid)}, raw engine ${m(times.engineHybrid)}`);
  console.log(`  vector page:  adapter ${m(times.adapterVector)}, raw engine ${m(times.engineVector)}`);
} finally {
  await embedder.close();
  await index.close();
  await engine.close();
  await weaviate?.stop();
}
