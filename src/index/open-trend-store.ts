/**
 * Chooses the TrendStore from configuration, mirroring openSearchIndex: Weaviate when
 * WEAVIATE_URL is set, otherwise the embedded LanceDB directory under THREADSIGHT_DATA_DIR.
 */
import type { Config } from "../config.js";
import type { TrendStore } from "../topics/trend-store.js";
import { LanceDbIndex } from "./lancedb/lancedb-index.js";
import { LanceDbTrendStore } from "./lancedb/trends.js";
import { WeaviateTrendStore } from "./weaviate/trends.js";

/** The configured TrendStore, not yet opened (openSearchIndex pairs it with the index). */
export function trendStoreFor(config: Config): TrendStore {
  return config.weaviateUrl
    ? new WeaviateTrendStore({
        httpUrl: config.weaviateUrl,
        ...(config.weaviateGrpcUrl ? { grpcUrl: config.weaviateGrpcUrl } : {}),
        ...(config.weaviateApiKey ? { apiKey: config.weaviateApiKey } : {}),
        collection: config.weaviateCollection,
        consistency: config.weaviateConsistency,
        replicationFactor: config.weaviateReplicationFactor,
      })
    : new LanceDbTrendStore({ dir: LanceDbIndex.dirFor(config.dataDir) });
}

/** The configured TrendStore, opened. */
export async function openTrendStore(config: Config): Promise<TrendStore> {
  const store = trendStoreFor(config);
  await store.open();
  return store;
}
