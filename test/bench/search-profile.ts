/**
 * Where one search's time goes, stage by stage, on the embedded index (LanceDB), in this
 * process: query embedding, the keyword and vector candidate queries, fusion, reading the page's
 * rows, the summary and encoding the response (protobuf binary and JSON). Each stage is timed
 * alone on fresh queries; "SearchCore" is the whole use case (embedding included, stages
 * overlapped as the service runs them) and "handler" adds the response message.
 *
 * It also times the vector window with an exact re-rank of its rows (refine factor 1: what the
 * adapter does while rows written since the last optimize are outside the vector index) and
 * checks that the window keeps the answers: the share of the fused top 10 that matches the top
 * 10 fused from exact (brute-force) vector scores, for the window as served ("now") and the
 * re-ranked one ("before" in the stored result).
 */

import { randomBytes } from "node:crypto";
import { create, toBinary, toJsonString } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { connect } from "@lancedb/lancedb";
import { SemanticSearchResponseSchema, VectorSearchResponseSchema } from "../../gen/threadsight/v1/search_pb.js";
import { searchService } from "../../src/api/search.js";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import { SearchCore } from "../../src/core/search.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import { candidateDepth, fuse } from "../../src/index/fusion.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { VectorPlan } from "../../src/index/lancedb/queries.js";
import {
  keywordQuery,
  RESULT_COLUMNS,
  rowsByIdQuery,
  vectorIndexStats,
  vectorPlan,
  vectorQuery,
} from "../../src/index/lancedb/queries.js";
import { fromRow, POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import type { BackendTarget } from "./backends.js";
import { indexFor } from "./backends.js";
import { PAGE } from "./engine-floor.js";
import { loadBenchQueries, QueryPool } from "./search-queries.js";
import { median, msSince } from "./stats.js";

/** Median ms per stage for one method. */
export interface ProfileRow {
  method: "semantic" | "vector";
  queries: number;
  stages: { name: string; ms: number }[];
}

/** The profile section. */
export interface ProfileResult {
  backend: string;
  posts: number;
  rows: ProfileRow[];
  /** Mean over queries of |fused top 10 ∩ fused top 10 with exact vectors| / 10: as served, and with the window re-ranked exactly. */
  hybridTop10Exact: { now: number; before: number };
}

/** Profiles `queries` fresh queries against the embedded index of `target`. */
export async function profileSearch(
  target: BackendTarget,
  queries: number,
  log: (s: string) => void,
): Promise<ProfileResult> {
  if (target.backend !== "lancedb") throw new Error("the stage profile runs on the embedded index only");
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env });
  const pool = new QueryPool(loadBenchQueries());
  const embedder = await startUseEmbedder(config.embedWorkers);
  const index = await indexFor(target);
  const info = await index.open(embedder.model, embedder.dimensions);
  const db = await connect(LanceDbIndex.dirFor(target.dataDir), { readConsistencyInterval: 1 });
  const table = await db.openTable(POSTS_TABLE);
  const summarizer = createExtractiveSummarizer();
  const core = new SearchCore({
    index,
    embedder,
    summarizer,
    hybridAlpha: config.hybridAlpha,
    shortQueryAlpha: config.shortQueryAlpha,
    pageTokens: new PageTokens(randomBytes(32)),
  });
  const handlers = searchService(core);
  const signal = AbortSignal.timeout(3_600_000);
  const ctx = { signal } as HandlerContext;
  const sem = new Map<string, number[]>();
  const vec = new Map<string, number[]>();
  const agreeNow: number[] = [];
  const agreeBefore: number[] = [];
  const depth = candidateDepth(0, PAGE);
  const time = async <T>(into: Map<string, number[]>, name: string, f: () => Promise<T> | T): Promise<T> => {
    const t = process.hrtime.bigint();
    const out = await f();
    into.set(name, [...(into.get(name) ?? []), msSince(t)]);
    return out;
  };
  try {
    for (const q of pool.take(5)) await core.semantic({ query: q, limit: 10, subforums: [], pageToken: "" }, signal);
    const describe = (p: VectorPlan): string =>
      [p.ef !== undefined ? `ef ${p.ef}` : "", p.refineFactor !== undefined ? `refine ${p.refineFactor}` : "no re-rank"]
        .filter(Boolean)
        .join(", ");
    const stats = await vectorIndexStats(table);
    const windowPlan = vectorPlan(stats, "window", depth);
    const reranked = { ...windowPlan, refineFactor: 1 };
    const pagePlan = vectorPlan(stats, "page", PAGE);
    log(
      `profile: vector index ${stats?.indexType ?? "none"} (${stats?.numUnindexedRows ?? 0} unindexed rows); window ${describe(windowPlan)}; page ${describe(pagePlan)}`,
    );
    for (const q of pool.take(queries)) {
      const [v] = await time(sem, "query embedding", () => embedder.embed([q], signal));
      const kw = await time(sem, `keyword window (BM25, ${depth} ids)`, () =>
        keywordQuery(table, q, undefined, depth, ["id"]).withRowId().toArray(),
      );
      await time(sem, "vector index statistics (overlaps the embedding)", () => vectorIndexStats(table));
      const vr = await time(sem, `vector window (${depth} ids, ${describe(windowPlan)})`, () =>
        vectorQuery(table, v!, undefined, { limit: depth, offset: 0 }, ["id"], windowPlan).withRowId().toArray(),
      );
      const vrBefore = await time(sem, `vector window re-ranked (${describe(reranked)})`, () =>
        vectorQuery(table, v!, undefined, { limit: depth, offset: 0 }, ["id"], reranked).toArray(),
      );
      const scored = (rows: Record<string, unknown>[], key: "_score" | "_distance") =>
        rows.map((r) => ({ id: String(r.id), score: key === "_score" ? Number(r._score) : 1 - Number(r._distance) }));
      const fused = await time(sem, "fusion", () =>
        fuse(scored(kw, "_score"), scored(vr, "_distance"), config.hybridAlpha, config.hybridFusion).slice(0, PAGE),
      );
      const exactRows = await table
        .query()
        .nearestTo(v!)
        .distanceType("cosine")
        .select(["id", "_distance"])
        .limit(depth)
        .bypassVectorIndex()
        .toArray();
      const top10 = (vecRows: Record<string, unknown>[]) =>
        fuse(scored(kw, "_score"), scored(vecRows, "_distance"), config.hybridAlpha, config.hybridFusion)
          .slice(0, 10)
          .map((h) => h.id);
      const exact = new Set(top10(exactRows));
      agreeNow.push(top10(vr).filter((id) => exact.has(id)).length / 10);
      agreeBefore.push(top10(vrBefore).filter((id) => exact.has(id)).length / 10);
      const address = new Map([...kw, ...vr].map((r: Record<string, unknown>) => [String(r.id), r._rowid as bigint]));
      await time(sem, `page rows (by row address, ${RESULT_COLUMNS.length} columns, as served)`, () =>
        table
          .takeRowIds(fused.map((h) => address.get(h.id)!))
          .select([...RESULT_COLUMNS])
          .toArray(),
      );
      const rows = await time(sem, `page rows (id IN query, all ${POST_COLUMNS.length} columns, as before)`, () =>
        rowsByIdQuery(
          table,
          fused.map((h) => h.id),
          POST_COLUMNS,
        ).toArray(),
      );
      const posts = rows.map((r: Record<string, unknown>) => fromRow(r));
      // In the fused order, with the fused score, as the service hands them to the summarizer.
      const byId = new Map(posts.map((p) => [p.id, p]));
      const ranked = fused.slice(0, 10).flatMap((h) => {
        const p = byId.get(h.id);
        return p ? [{ title: p.title, content: p.content, subforum: p.subforum, relevance: h.score }] : [];
      });
      await time(sem, "summary (extractive)", () => summarizer.summarize(q, ranked, signal));
      // The whole use case and the handler, on a variant of the query so its embedding is fresh too.
      await time(sem, "SearchCore.semantic (all stages, as served)", () =>
        core.semantic({ query: `${q}?`, limit: 10, subforums: [], pageToken: "" }, signal),
      );
      const res = await time(sem, "handler (SearchCore + response message)", () =>
        handlers.semanticSearch({ query: `${q}??`, limit: 10, subforums: [], pageToken: "" } as never, ctx),
      );
      const msg = create(SemanticSearchResponseSchema, res as never);
      await time(sem, "encode protobuf binary", () => toBinary(SemanticSearchResponseSchema, msg));
      await time(sem, "encode JSON", () => toJsonString(SemanticSearchResponseSchema, msg));

      const [v2] = await time(vec, "query embedding", () => embedder.embed([`${q}!`], signal));
      await time(vec, "vector index statistics", () => vectorIndexStats(table));
      await time(vec, `vector page (${PAGE} rows, ${RESULT_COLUMNS.length} columns, ${describe(pagePlan)})`, () =>
        vectorQuery(table, v2!, undefined, { limit: PAGE, offset: 0 }, RESULT_COLUMNS, pagePlan).toArray(),
      );
      const vres = await time(vec, "handler (SearchCore + response message)", () =>
        handlers.vectorSearch(
          { query: `${q}!!`, limit: 10, subforums: [], pageToken: "", startDate: "", endDate: "" } as never,
          ctx,
        ),
      );
      const vmsg = create(VectorSearchResponseSchema, vres as never);
      await time(vec, "encode protobuf binary", () => toBinary(VectorSearchResponseSchema, vmsg));
      await time(vec, "encode JSON", () => toJsonString(VectorSearchResponseSchema, vmsg));
    }
  } finally {
    table.close();
    db.close();
    await index.close();
    await embedder.close();
  }
  const row = (method: "semantic" | "vector", m: Map<string, number[]>): ProfileRow => ({
    method,
    queries,
    stages: [...m].map(([name, xs]) => ({ name, ms: median(xs) })),
  });
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const out = {
    backend: target.backend,
    posts: info.count,
    rows: [row("semantic", sem), row("vector", vec)],
    hybridTop10Exact: { now: mean(agreeNow), before: mean(agreeBefore) },
  };
  for (const r of out.rows)
    log(`profile ${r.method}: ${r.stages.map((s) => `${s.name} ${s.ms.toFixed(2)}`).join("; ")}`);
  log(
    `profile: fused top 10 vs exact vectors: ${(100 * out.hybridTop10Exact.now).toFixed(1)}% as served, ${(100 * out.hybridTop10Exact.before).toFixed(1)}% with the window re-ranked`,
  );
  return out;
}
