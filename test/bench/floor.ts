/**
 * Our overhead over the engine floor, per backend: for fresh queries (cold query cache), the
 * end-to-end gRPC SemanticSearch / VectorSearch latency divided by (query embedding time + the
 * raw engine queries with the same parameters, engine-floor.ts), both measured here, query by
 * query: the service call first, then the same query embedded by an identical embedder in this
 * process and sent straight to the engine.
 *
 * Each query gives one ratio, end-to-end / (embedding + engine), from three timings taken back to
 * back, so background load that comes and goes hits numerator and denominator alike; each round
 * (its own fresh queries) gives the median of its queries' ratios, and the figure reported is the
 * median of the round ratios. A ratio below 1 is possible:
 * the service overlaps the query embedding with the keyword side of a hybrid query, which the
 * floor (embedding, then engine) does not.
 *
 * Beside each query, one gRPC Health/Check on a client like the search call's times the bare
 * round trip (HTTP/2 and grpc-js both ways, the service's router, no auth or engine): a cost
 * every call pays that the floor as defined leaves out. It is reported as its own column and
 * as a second ratio, end-to-end / (embedding + engine + round trip); the goal reads the first.
 *
 * When ghz is installed, each round also sends as many other fresh queries through ghz (Go,
 * grpc-go, ghz-calls.ts), one at a time, with the floor of half of them taken before that run and
 * of the other half after it: the same ratio with a client whose own cost per call is smaller
 * than grpc-js's (Health/Check round trip ~0.8 against ~2.2 ms), which shows how much of the
 * distance to the floor is the service and how much the Node client. Informational too.
 */
import { loadConfig } from "../../src/config.js";
import { keywordText } from "../../src/core/keyword-text.js";
import { querySubject } from "../../src/core/query-subject.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { findGhz } from "../load/grpc-load.js";
import type { BackendTarget } from "./backends.js";
import { openEngineFloor } from "./engine-floor.js";
import { ghzSequential } from "./ghz-calls.js";
import type { Method } from "./search-clients.js";
import { grpcCall, healthCheckCall } from "./search-clients.js";
import { loadBenchQueries, QueryPool } from "./search-queries.js";
import { spawnService } from "./service-process.js";
import { median, msSince } from "./stats.js";

/** One method's figures. */
export interface FloorRow {
  method: Method;
  rounds: number;
  queriesPerRound: number;
  /** Medians over every query of every round, ms. */
  endToEnd: number;
  embed: number;
  engine: number;
  /** Median bare gRPC round trip (Health/Check), ms; absent in results stored before it was measured. */
  roundTrip?: number;
  /** Median over rounds of end-to-end / (embedding + engine + round trip). */
  ratioWithRoundTrip?: number;
  /** Per round, the median of its queries' ratios; and the median of those (the reported figure). */
  ratios: number[];
  ratio: number;
  /** The same through ghz (absent without ghz, or in results stored before it was measured). */
  goEndToEnd?: number;
  goRatios?: number[];
  goRatio?: number;
}

/** The floor section for one backend. */
export interface FloorResult {
  backend: string;
  posts: number;
  rows: FloorRow[];
}

/** Goal: end-to-end at most this many times the floor. */
export const FLOOR_GOAL = 1.3;

const METHODS: readonly Method[] = ["semantic", "vector"];
const RPCS: Record<Method, string> = {
  semantic: "threadsight.v1.SearchService/SemanticSearch",
  vector: "threadsight.v1.SearchService/VectorSearch",
};
const WARMUP = 5;

/** Measures the floor ratio against `target` (which must already hold the posts). */
export async function benchFloor(
  target: BackendTarget,
  opts: { rounds: number; queriesPerRound: number },
  log: (s: string) => void,
): Promise<FloorResult> {
  const pool = new QueryPool(loadBenchQueries());
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const svc = await spawnService(target.dataDir, target.env);
  const embedder = await startUseEmbedder(config.embedWorkers);
  const engine = await openEngineFloor(config);
  const clients = new Map(METHODS.map((m) => [m, grpcCall(svc.address, svc.key, m)]));
  const health = healthCheckCall(svc.address);
  const ghz = findGhz();
  if (ghz === undefined) log("floor: ghz not found (scripts/install-load-tools.sh builds it): no Go client column");
  const samples = new Map(
    METHODS.map((m) => [
      m,
      {
        e2e: [] as number[],
        embed: [] as number[],
        engine: [] as number[],
        trip: [] as number[],
        ratios: [] as number[],
        tripRatios: [] as number[],
        goE2e: [] as number[],
        goRatios: [] as number[],
      },
    ]),
  );
  const signal = AbortSignal.timeout(3_600_000);
  try {
    for (const q of pool.take(WARMUP)) {
      for (const m of METHODS) await clients.get(m)!.call(q);
      await health.call();
      const [v] = await embedder.embed([querySubject(q)], signal);
      await engine.semantic(keywordText(querySubject(q)), v!);
      await engine.vector(v!);
    }
    for (let round = 0; round < opts.rounds; round++) {
      for (const m of METHODS) {
        const timedFloor = async (q: string): Promise<{ embed: number; engine: number }> => {
          let t = process.hrtime.bigint();
          // What the service embeds and searches for (query-subject.ts, keyword-text.ts).
          const subject = querySubject(q);
          const [v] = await embedder.embed([subject], signal);
          const embed = msSince(t);
          t = process.hrtime.bigint();
          if (m === "semantic") await engine.semantic(keywordText(subject), v!);
          else await engine.vector(v!);
          return { embed, engine: msSince(t) };
        };
        const call = clients.get(m)!.call;
        const r = {
          e2e: [] as number[],
          embed: [] as number[],
          engine: [] as number[],
          trip: [] as number[],
          ratio: [] as number[],
          tripRatio: [] as number[],
        };
        const served = async (q: string): Promise<void> => {
          const t = process.hrtime.bigint();
          await call(q);
          r.e2e.push(msSince(t));
        };
        const floor = async (q: string): Promise<void> => {
          const f = await timedFloor(q);
          r.embed.push(f.embed);
          r.engine.push(f.engine);
        };
        // Whichever runs second finds the engine's caches warm for that query (the same graph
        // nodes, posting lists and row pages), so the order alternates from query to query.
        for (const [i, q] of pool.take(opts.queriesPerRound).entries()) {
          if (i % 2 === 0) {
            await served(q);
            await floor(q);
          } else {
            await floor(q);
            await served(q);
          }
          const t = process.hrtime.bigint();
          await health.call();
          r.trip.push(msSince(t));
          r.ratio.push(r.e2e.at(-1)! / (r.embed.at(-1)! + r.engine.at(-1)!));
          r.tripRatio.push(r.e2e.at(-1)! / (r.embed.at(-1)! + r.engine.at(-1)! + r.trip.at(-1)!));
        }
        const s = samples.get(m)!;
        if (ghz !== undefined) {
          // The first call of a ghz run also sets up its client; its query is not counted.
          const [first, ...qs] = pool.take(opts.queriesPerRound + 1);
          const floors = new Map<number, number>();
          const floorOf = async (parity: number): Promise<void> => {
            for (const [i, q] of qs.entries())
              if (i % 2 === parity) floors.set(i, await timedFloor(q).then((f) => f.embed + f.engine));
          };
          await floorOf(0);
          const [, ...go] = await ghzSequential(
            ghz,
            svc.address,
            svc.key,
            RPCS[m],
            [first!, ...qs].map((q) => ({ query: q, limit: 10 })),
          );
          await floorOf(1);
          s.goE2e.push(...go);
          s.goRatios.push(median(go.map((ms, i) => ms / floors.get(i)!)));
          log(
            `floor ${target.backend} r${round + 1} ${m} (ghz): e2e ${median(go).toFixed(1)} ms; ratio ${s.goRatios.at(-1)!.toFixed(2)}x`,
          );
        }
        s.e2e.push(...r.e2e);
        s.embed.push(...r.embed);
        s.engine.push(...r.engine);
        s.trip.push(...r.trip);
        const ratio = median(r.ratio);
        s.ratios.push(ratio);
        s.tripRatios.push(median(r.tripRatio));
        log(
          `floor ${target.backend} r${round + 1} ${m}: e2e ${median(r.e2e).toFixed(1)} ms, embed ${median(r.embed).toFixed(1)}, engine ${median(r.engine).toFixed(1)}, round trip ${median(r.trip).toFixed(1)}; ratio ${ratio.toFixed(2)}x (${median(r.tripRatio).toFixed(2)}x with the round trip)`,
        );
      }
    }
  } finally {
    for (const c of clients.values()) c.close();
    health.close();
    await engine.close();
    await embedder.close();
    await svc.stop();
  }
  const rows = METHODS.map((m): FloorRow => {
    const s = samples.get(m)!;
    const go =
      s.goRatios.length > 0 ? { goEndToEnd: median(s.goE2e), goRatios: s.goRatios, goRatio: median(s.goRatios) } : {};
    return {
      method: m,
      rounds: opts.rounds,
      queriesPerRound: opts.queriesPerRound,
      endToEnd: median(s.e2e),
      embed: median(s.embed),
      engine: median(s.engine),
      roundTrip: median(s.trip),
      ratioWithRoundTrip: median(s.tripRatios),
      ratios: s.ratios,
      ratio: median(s.ratios),
      ...go,
    };
  });
  return { backend: target.backend, posts: svc.posts, rows };
}
