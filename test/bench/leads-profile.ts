/**
 * Where one FindLeads call's time goes on the embedded index (LanceDB), in this process, after
 * the query embedding: the lead-filtered keyword and vector windows, fusion, the page's rows (as
 * read before: 30 candidates whole, 20 columns; as now: the 10 ranked leads, 14 columns), the
 * index's hybrid call both ways, and LeadsCore and the handler with the embedding already known
 * (a stand-in embedder hands back the query's vector, as a fast encoder or the cache would).
 * Stages are timed alone, one after another, over the same queries (interleaved per query, so
 * background load hits every stage alike), in wall time and in the process's CPU time (which
 * counts LanceDB's threads and is steadier than wall time on a loaded machine; the embedding
 * runs in worker threads of this process too). Run it over a copy of the kept insights store (it
 * reads only):
 *
 *   nice -n 10 node --import tsx test/bench/leads-profile.ts <dataDir> [queries]
 *
 * Last, FindLeads as before (the filtered hybrid reading all 30 candidates whole) and as now
 * (LeadsCore: 30 candidates read by id with their vectors and judged by the absolute relevance
 * floor) over every benchmark query, taking turns.
 */
import type { HandlerContext } from "@connectrpc/connect";
import type { Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import { leadService } from "../../src/api/leads.js";
import { loadConfig } from "../../src/config.js";
import { LeadsCore } from "../../src/core/leads.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { Scored } from "../../src/index/fusion.js";
import { candidateDepth, fuse } from "../../src/index/fusion.js";
import { lanceWhere } from "../../src/index/lancedb/filter.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import {
  CHOOSE_COLUMNS,
  keywordQuery,
  LEAD_COLUMNS,
  vectorIndexStats,
  vectorPlan,
  vectorQuery,
} from "../../src/index/lancedb/queries.js";
import { POST_COLUMNS, POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { knownVectors } from "./known-vectors.js";
import { loadBenchQueries } from "./search-queries.js";
import { median, msSince } from "./stats.js";

const MIN_SCORE = 50;
const LIMIT = 10;
const CANDIDATES = LIMIT * 3;

/** Ids, scores, addresses and lead scores of a ranking window. */
async function window(
  table: Table,
  q: ReturnType<typeof keywordQuery> | ReturnType<typeof vectorQuery>,
  scoreColumn: "_score" | "_distance",
) {
  const rows = (await q.withRowId().toArray()) as Record<string, unknown>[];
  void table;
  return rows.map((r) => ({
    id: String(r.id),
    score: scoreColumn === "_score" ? Number(r._score) : 1 - Number(r._distance),
    address: r._rowid as bigint,
    leadScore: Number(r.lead_score ?? 0),
  }));
}

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: leads-profile.ts <dataDir> [queries]");
const n = Number(process.argv[3] ?? 30);
const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, THREADSIGHT_DATA_DIR: dataDir });
const embedder = await startUseEmbedder(config.embedWorkers);
const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dataDir), fusion: config.hybridFusion });
await index.open(embedder.model, embedder.dimensions);
const db = await connect(LanceDbIndex.dirFor(dataDir), { readConsistencyInterval: 1 });
const table = await db.openTable(POSTS_TABLE);
const queries = loadBenchQueries().slice(-n);
const vectors = await embedder.embed(queries);
const known = new Map(queries.map((q, i) => [q, vectors[i]!]));
const core = new LeadsCore({
  index,
  embedder: knownVectors(embedder.model, embedder.dimensions, known),
  hybridAlpha: config.hybridAlpha,
  shortQueryAlpha: config.shortQueryAlpha,
});
const handlers = leadService(core);
const signal = AbortSignal.timeout(3_600_000);
const ctx = { signal } as HandlerContext;
const where = lanceWhere({ minLeadScore: MIN_SCORE });
const depth = candidateDepth(0, CANDIDATES);
const plan = vectorPlan(await vectorIndexStats(table), "window", depth);
const times = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
/** Wall time, and CPU time of the whole process (LanceDB's threads included: steadier under load). */
const time = async <T>(name: string, f: () => Promise<T> | T): Promise<T> => {
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  const out = await f();
  times.set(name, [...(times.get(name) ?? []), msSince(t)]);
  const used = process.cpuUsage(c);
  cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / 1000]);
  return out;
};
try {
  console.log(
    `leads at min_score ${MIN_SCORE}: ${await table.countRows(where)} of ${await table.countRows()} posts; vector plan ${JSON.stringify(plan)}`,
  );
  for (const q of queries.slice(0, 5)) await core.find({ query: q, limit: LIMIT, minScore: MIN_SCORE }, signal);
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i]!;
    const v = vectors[i]!;
    await time("query embedding (USE, fresh text)", () => embedder.embed([`${q} .`], signal));
    const kw = await time(`keyword window, lead filter (${depth} ids)`, () =>
      window(table, keywordQuery(table, q, where, depth, ["id"]), "_score"),
    );
    await time(`keyword window, lead filter, + lead columns`, () =>
      window(table, keywordQuery(table, q, where, depth, CHOOSE_COLUMNS), "_score"),
    );
    await time("keyword window, no filter (reference)", () =>
      window(table, keywordQuery(table, q, undefined, depth, ["id"]), "_score"),
    );
    const vec = await time(`vector window, lead filter (prefilter, ${depth} ids)`, () =>
      window(table, vectorQuery(table, v, where, { limit: depth, offset: 0 }, ["id"], plan), "_distance"),
    );
    const withLead = await time("vector window, lead filter, + lead columns", () =>
      window(table, vectorQuery(table, v, where, { limit: depth, offset: 0 }, CHOOSE_COLUMNS, plan), "_distance"),
    );
    await time("vector window, no filter (reference)", () =>
      window(table, vectorQuery(table, v, undefined, { limit: depth, offset: 0 }, ["id"], plan), "_distance"),
    );
    const page: Scored[] = await time("fusion", () =>
      fuse(kw, vec, config.hybridAlpha, config.hybridFusion).slice(0, CANDIDATES),
    );
    const byId = new Map([...kw, ...vec, ...withLead].map((c) => [c.id, c]));
    await time(`page rows before: ${CANDIDATES} candidates x ${POST_COLUMNS.length} columns`, () =>
      table
        .takeRowIds(page.map((h) => byId.get(h.id)!.address))
        .select([...POST_COLUMNS])
        .toArray(),
    );
    const top = page.slice(0, LIMIT);
    await time(`page rows now: ${LIMIT} leads x ${LEAD_COLUMNS.length} columns`, () =>
      table
        .takeRowIds(top.map((h) => byId.get(h.id)!.address))
        .select([...LEAD_COLUMNS])
        .toArray(),
    );
    await time("handler (core + response message), embedding known", () =>
      handlers.findLeads({ query: q, limit: LIMIT, minScore: MIN_SCORE } as never, ctx),
    );
  }
  // Before and now over every benchmark query, twice, the two taking turns at going first (a
  // query's second run finds its index pages warm).
  const all = loadBenchQueries();
  const allVectors = await embedder.embed(all);
  const abCore = new LeadsCore({
    index,
    embedder: knownVectors(embedder.model, embedder.dimensions, new Map(all.map((q, i) => [q, allVectors[i]!]))),
    hybridAlpha: config.hybridAlpha,
    shortQueryAlpha: config.shortQueryAlpha,
  });
  const ab = {
    [`FindLeads as before: hybrid reading ${CANDIDATES} candidates whole, ${all.length} queries x 2`]: (i: number) =>
      index.hybrid(
        {
          text: all[i]!,
          vector: allVectors[i]!,
          alpha: config.hybridAlpha,
          limit: CANDIDATES,
          offset: 0,
          filter: { minLeadScore: MIN_SCORE },
        },
        signal,
      ),
    [`FindLeads now: LeadsCore.find, ${CANDIDATES} candidates read by id and judged, ${all.length} queries x 2`]: (
      i: number,
    ) => abCore.find({ query: all[i]!, limit: LIMIT, minScore: MIN_SCORE }, signal),
  };
  for (let rep = 0; rep < 2; rep++) {
    for (let i = 0; i < all.length; i++) {
      const entries = Object.entries(ab);
      for (const [name, run] of (i + rep) % 2 === 0 ? entries : entries.reverse()) await time(name, () => run(i));
    }
  }
} finally {
  table.close();
  db.close();
  await index.close();
  await embedder.close();
}
console.log("| stage | wall ms (median) | CPU ms (median) |\n| --- | --- | --- |");
for (const [name, xs] of times)
  console.log(`| ${name} | ${median(xs).toFixed(2)} | ${median(cpu.get(name)!).toFixed(2)} |`);
