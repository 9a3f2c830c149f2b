/**
 * The VectorSearch handler in one process against the floor's two timings, for fresh queries:
 * the service's handler (searchService over SearchCore, with the service's embedder and the
 * embedded index, the response message built) beside the floor (an identical embedder, then the
 * raw engine query of engine-floor.ts), the same query both ways, alternating which goes first.
 * What end-to-end adds beyond this difference is the transport and the per-call layers
 * (call-overhead.ts), of which the answer's protobuf encoding and decoding are timed last, on the
 * answers the handler gave. Run on the kept benchmark index:
 *   node --import tsx test/bench/handler-vs-floor.ts [queries]
 */

import { randomBytes } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { VectorSearchResponse } from "../../gen/threadsight/v1/search_pb.js";
import { VectorSearchRequestSchema, VectorSearchResponseSchema } from "../../gen/threadsight/v1/search_pb.js";
import { searchService } from "../../src/api/search.js";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { createEmbedder } from "../../src/enrich/create-embedder.js";
import { cachedEmbedder } from "../../src/enrich/query-cache.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { indexFor, targetFor } from "./backends.js";
import { openEngineFloor } from "./engine-floor.js";
import { loadBenchQueries } from "./search-queries.js";
import { median } from "./stats.js";

/** Calls before timing starts (connections, caches, JIT). */
const WARMUP = 10;

const n = Number(process.argv[2] ?? 200);
const target = targetFor("lancedb", "full", undefined);
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
const embedder = cachedEmbedder(await createEmbedder(config), 100);
const index = await indexFor(target);
await index.open(embedder.model, embedder.dimensions);
const handlers = searchService(
  new SearchCore({
    index,
    embedder,
    summarizer: createExtractiveSummarizer(),
    hybridAlpha: config.hybridAlpha,
    shortQueryAlpha: config.shortQueryAlpha,
    pageTokens: new PageTokens(randomBytes(32)),
  }),
);
const engine = await openEngineFloor(config);
const floorEmbedder = await startUseEmbedder(config.embedWorkers);
const signal = AbortSignal.timeout(3_600_000);
const context = { signal } as Parameters<NonNullable<typeof handlers.vectorSearch>>[1];
try {
  const base = loadBenchQueries();
  // Past the list's end a suffix keeps each query fresh for the service's query cache.
  const queries = Array.from({ length: n }, (_, i) => (i < base.length ? base[i]! : `${base[i % base.length]!} ${i}`));
  const t = { handler: [] as number[], floor: [] as number[], embed: [] as number[], engine: [] as number[] };
  const answers: VectorSearchResponse[] = [];
  const handler = async (q: string): Promise<void> => {
    const s = performance.now();
    // The handler builds the message with create(); create() hands back a message of its schema as is.
    answers.push(
      create(
        VectorSearchResponseSchema,
        await handlers.vectorSearch!(create(VectorSearchRequestSchema, { query: q, limit: 10 }), context),
      ),
    );
    t.handler.push(performance.now() - s);
  };
  const floor = async (q: string): Promise<void> => {
    const s = performance.now();
    const [v] = await floorEmbedder.embed([q], signal);
    const m = performance.now();
    await engine.vector(v!);
    const e = performance.now();
    t.floor.push(e - s);
    t.embed.push(m - s);
    t.engine.push(e - m);
  };
  for (const [i, q] of queries.entries()) {
    if (i % 2 === 0) {
      await handler(q);
      await floor(q);
    } else {
      await floor(q);
      await handler(q);
    }
  }
  const m = (v: number[]): string => median(v.slice(WARMUP)).toFixed(2);
  console.log(
    `${n} fresh queries: handler ${m(t.handler)} ms; floor ${m(t.floor)} ms (embedding ${m(t.embed)}, engine ${m(t.engine)})`,
  );
  const codec = { encode: [] as number[], decode: [] as number[], bytes: [] as number[] };
  for (let round = 0; round < 5; round++) {
    for (const answer of answers) {
      let s = performance.now();
      const bytes = toBinary(VectorSearchResponseSchema, answer);
      codec.encode.push(performance.now() - s);
      s = performance.now();
      fromBinary(VectorSearchResponseSchema, bytes);
      codec.decode.push(performance.now() - s);
      codec.bytes.push(bytes.length);
    }
  }
  console.log(
    `answer (median ${median(codec.bytes)} bytes): encode ${m(codec.encode)} ms, decode ${m(codec.decode)} ms`,
  );
} finally {
  await floorEmbedder.close();
  await embedder.close();
  await engine.close();
  await index.close();
}
