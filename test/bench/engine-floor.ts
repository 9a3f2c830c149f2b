/**
 * The engine floor: the queries a search needs, issued straight to LanceDB or Weaviate from the
 * benchmark process with the parameters the service uses, and nothing else (no validation,
 * fusion, mapping, summary, transport, auth or metering). What a search costs above this is
 * our overhead.
 *
 * - LanceDB: the very query builders the adapter uses (src/index/lancedb/queries.ts): for
 *   SemanticSearch the keyword and vector candidate windows in parallel, then the page's rows
 *   by row address (the result columns only, as the service reads them);
 *   for VectorSearch one nearest-neighbour query returning the page's rows. Results are taken
 *   as Arrow batches, as the adapter takes them (row objects cost more).
 * - Weaviate: one `hybrid` query (alpha, fusion, BM25 properties) for the page with its
 *   properties, as the adapter asks for a first page (weaviate/hybrid-window.ts); for
 *   VectorSearch one `nearVector` query returning the properties.
 */

import type { Connection, Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";
import type { WeaviateClient } from "weaviate-client";
import type { Config } from "../../src/config.js";
import { alphaFor } from "../../src/core/hybrid-alpha.js";
import { candidateDepth } from "../../src/index/fusion.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import {
  keywordQuery,
  RESULT_COLUMNS,
  vectorIndexStats,
  vectorPlan,
  vectorQuery,
} from "../../src/index/lancedb/queries.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { connectWeaviate } from "../../src/index/weaviate/connect.js";
import { hybridRequest } from "../../src/index/weaviate/hybrid-window.js";
import { BM25_PROPERTIES, propertiesFor } from "../../src/index/weaviate/schema.js";

/** The page the service asks the index for: limit 10 plus one to know whether more exist. */
export const PAGE = 11;

/** Raw engine calls for one backend. */
export interface EngineFloor {
  semantic(text: string, vector: Float32Array): Promise<number>;
  vector(vector: Float32Array): Promise<number>;
  close(): Promise<void>;
}

/** Opens the raw engine for the service configuration `config`. */
export async function openEngineFloor(config: Config): Promise<EngineFloor> {
  if (config.weaviateUrl !== undefined)
    return weaviateFloor(
      await connectWeaviate({
        httpUrl: config.weaviateUrl,
        ...(config.weaviateGrpcUrl ? { grpcUrl: config.weaviateGrpcUrl } : {}),
      }),
      config,
    );
  const db = await connect(LanceDbIndex.dirFor(config.dataDir), { readConsistencyInterval: 1 });
  return lanceFloor(db, await db.openTable(POSTS_TABLE));
}

function lanceFloor(db: Connection, table: Table): EngineFloor {
  const depth = candidateDepth(0, PAGE);
  return {
    async semantic(text, vector) {
      // Results as Arrow batches, as the adapter takes them (no row objects).
      const [kw, vec] = await Promise.all([
        keywordQuery(table, text, undefined, depth, ["id"]).withRowId().toArrow(),
        vectorIndexStats(table).then((stats) =>
          vectorQuery(table, vector, undefined, { limit: depth, offset: 0 }, ["id"], vectorPlan(stats, "window", depth))
            .withRowId()
            .toArrow(),
        ),
      ]);
      // The page's rows: the first PAGE distinct candidates stand in for the fused page (fusion
      // itself is our work, not the engine's); same number of rows read the same way (by the
      // row addresses the ranking returned).
      const address = new Map(
        [vec, kw].flatMap((batch) => {
          if (batch.numRows === 0) return [];
          const ids = batch.getChild("id")!.toArray() as ArrayLike<unknown>;
          const rowIds = batch.getChild("_rowid")!.toArray() as ArrayLike<bigint>;
          return Array.from({ length: batch.numRows }, (_, i) => [String(ids[i]), rowIds[i]!] as const);
        }),
      );
      const page = [...address.values()].slice(0, PAGE);
      return page.length > 0
        ? (
            await table
              .takeRowIds(page)
              .select([...RESULT_COLUMNS])
              .toArrow()
          ).numRows
        : 0;
    },
    async vector(vector) {
      const plan = vectorPlan(await vectorIndexStats(table), "page", PAGE);
      return (await vectorQuery(table, vector, undefined, { limit: PAGE, offset: 0 }, RESULT_COLUMNS, plan).toArrow())
        .numRows;
    },
    async close() {
      table.close();
      db.close();
    },
  };
}

/** The properties a search page reads, as the adapter reads them (`fields: "result"`). */
const RESULT_PROPERTIES = propertiesFor("result");

function weaviateFloor(client: WeaviateClient, config: Config): EngineFloor {
  const posts = client.collections.get(config.weaviateCollection);
  // The first page lies within Weaviate's fusion depth, so the adapter asks for just the page,
  // with its properties, in one call; the floor does the same.
  if (hybridRequest(0, PAGE).cutHere) throw new Error(`a first page of ${PAGE} is past Weaviate's hybrid depth`);
  return {
    async semantic(text, vector) {
      const res = await posts.query.hybrid(text, {
        vector: Array.from(vector),
        // The service's weight for this query (one or two words weigh the keyword side more).
        alpha: alphaFor(text, config),
        fusionType: config.hybridFusion === "rankedFusion" ? "Ranked" : "RelativeScore",
        queryProperties: BM25_PROPERTIES,
        limit: PAGE,
        returnMetadata: ["score"],
        returnProperties: RESULT_PROPERTIES,
      });
      return res.objects.length;
    },
    async vector(vector) {
      const res = await posts.query.nearVector(Array.from(vector), {
        limit: PAGE,
        returnMetadata: ["distance"],
        returnProperties: RESULT_PROPERTIES,
      });
      return res.objects.length;
    },
    async close() {
      await client.close();
    },
  };
}
