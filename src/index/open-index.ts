/**
 * Chooses the search backend from configuration: Weaviate when WEAVIATE_URL is set, otherwise
 * the embedded LanceDB index under THREADSIGHT_DATA_DIR. The caller then calls
 * `open(embeddingModel, dimensions)`, which creates or checks the storage.
 */
import type { Config } from "../config.js";
import { LanceDbIndex } from "./lancedb/lancedb-index.js";
import type { IndexingMode } from "./lancedb/maintenance.js";
import { serverReading } from "./lancedb/readers.js";
import { trendStoreFor } from "./open-trend-store.js";
import { RollupMaintainingIndex } from "./rollup-index.js";
import type { SearchIndex } from "./search-index.js";
import type { WeaviateIndexOptions } from "./weaviate/weaviate-index.js";
import { WeaviateIndex } from "./weaviate/weaviate-index.js";

export type { IndexingMode } from "./lancedb/maintenance.js";
export { INDEXING_MODES } from "./lancedb/maintenance.js";

/** How a process uses the index. */
export interface IndexUse {
  /**
   * When a writer to the embedded index does its index work (lancedb/maintenance.ts): "live"
   * (the default) while it writes; "deferred", all at its close (a bulk load); "auto", deferred
   * while no server reads the directory. Weaviate indexes each object as it is written: "auto"
   * is "live" there, and "deferred" is refused.
   */
  indexing?: IndexingMode;
  /** This process serves searches, which writers to the embedded index take into account. */
  serving?: boolean;
}

/** The configured SearchIndex, not yet opened; its upserts keep the trend rollups current. */
export async function openSearchIndex(config: Config, use: IndexUse = {}): Promise<SearchIndex> {
  const trends = trendStoreFor(config);
  if (config.weaviateUrl) {
    if (use.indexing === "deferred")
      throw new RangeError(
        "deferred indexing applies to the embedded index only; Weaviate indexes each object as it is written",
      );
    return new RollupMaintainingIndex(new WeaviateIndex(weaviateOptions(config, config.weaviateUrl)), trends);
  }
  return new RollupMaintainingIndex(
    new LanceDbIndex({
      dir: LanceDbIndex.dirFor(config.dataDir),
      fusion: config.hybridFusion,
      indexing: use.indexing ?? "live",
      serving: use.serving === true,
    }),
    trends,
  );
}

/** The Weaviate index settings of a configuration whose WEAVIATE_URL is `url`. */
export function weaviateOptions(config: Config, url: string): WeaviateIndexOptions {
  return {
    httpUrl: url,
    ...(config.weaviateGrpcUrl ? { grpcUrl: config.weaviateGrpcUrl } : {}),
    ...(config.weaviateApiKey ? { apiKey: config.weaviateApiKey } : {}),
    collection: config.weaviateCollection,
    replicationFactor: config.weaviateReplicationFactor,
    shards: config.weaviateShards,
    consistency: config.weaviateConsistency,
    fusion: config.hybridFusion,
    flatSearchCutoff: config.weaviateFlatSearchCutoff,
  };
}

/**
 * What a writer in `mode` does with the configured index, in words for its log: whether index
 * work waits for its close (the embedded index, deferred, or auto with no server reading).
 */
export function indexingPlan(config: Config, mode: IndexingMode): string {
  if (config.weaviateUrl) return "Weaviate indexes each post as it is written";
  if (mode === "live") return "indexes kept up to date while writing";
  if (mode === "deferred") return "index work deferred to the end of the run";
  return serverReading(LanceDbIndex.dirFor(config.dataDir))
    ? "a server reads this data directory: indexes kept up to date while writing"
    : "no server reads this data directory: index work deferred to the end of the run, or until one starts";
}
