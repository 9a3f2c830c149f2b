/**
 * Chooses the search backend from configuration: Weaviate when WEAVIATE_URL is set, otherwise
 * the embedded LanceDB index under THREADSIGHT_DATA_DIR. The caller then calls
 * `open(embeddingModel, dimensions)`, which creates or checks the storage.
 */
import type { Config } from "../config.js";
import { LanceDbIndex } from "./lancedb-index.js";
import { trendStoreFor } from "./open-trend-store.js";
import { RollupMaintainingIndex } from "./rollup-index.js";
import type { SearchIndex } from "./search-index.js";
import { WeaviateIndex } from "./weaviate-index.js";

/** How a writer uses the index. */
export interface IndexUse {
  /**
   * A bulk load into the embedded index: its indexes are brought up to date once, when the
   * writer closes, instead of in the background while it writes (lancedb-maintenance.ts).
   * Weaviate indexes each object as it is written, so it has no such mode.
   */
  deferIndexing?: boolean;
}

/** The configured SearchIndex, not yet opened; its upserts keep the trend rollups current. */
export async function openSearchIndex(config: Config, use: IndexUse = {}): Promise<SearchIndex> {
  const trends = trendStoreFor(config);
  if (config.weaviateUrl) {
    if (use.deferIndexing === true) throw new RangeError("deferred indexing applies to the embedded index only; Weaviate indexes each object as it is written");
    const index = new WeaviateIndex({
      httpUrl: config.weaviateUrl,
      ...(config.weaviateGrpcUrl ? { grpcUrl: config.weaviateGrpcUrl } : {}),
      ...(config.weaviateApiKey ? { apiKey: config.weaviateApiKey } : {}),
      collection: config.weaviateCollection,
      replicationFactor: config.weaviateReplicationFactor,
      shards: config.weaviateShards,
      consistency: config.weaviateConsistency,
      fusion: config.hybridFusion,
      flatSearchCutoff: config.weaviateFlatSearchCutoff,
    });
    return new RollupMaintainingIndex(index, trends);
  }
  return new RollupMaintainingIndex(new LanceDbIndex({ dir: LanceDbIndex.dirFor(config.dataDir), fusion: config.hybridFusion, deferIndexing: use.deferIndexing === true }), trends);
}
