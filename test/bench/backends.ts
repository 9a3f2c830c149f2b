/**
 * Opens the search backends the way `threadsight serve` and `threadsight ingest` do (loadConfig
 * + openSearchIndex), for a benchmark data directory or Weaviate collection. The env returned
 * with each is what a service or an ingest child needs to reach the same data.
 */
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import type { IndexUse } from "../../src/index/open-index.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import type { SearchIndex } from "../../src/index/search-index.js";
import { BENCH_DIR } from "./results-store.js";
import type { BenchWeaviate } from "./weaviate-server.js";

/** The two backends. */
export type Backend = "lancedb" | "weaviate";

/** Where one backend's benchmark data lives. */
export interface BackendTarget {
  backend: Backend;
  /** Data directory (LanceDB index, ingest checkpoints, accounts for the service). */
  dataDir: string;
  /** Env for loadConfig / a child process. */
  env: Record<string, string>;
  /** Weaviate collection, when backend is weaviate. */
  collection?: string;
}

/**
 * The benchmark's target for `backend`; `tag` separates smoke runs (--posts N) from the full corpus.
 * THREADSIGHT_BENCH_LANCEDB names another embedded data directory under BENCH_DIR (as
 * THREADSIGHT_BENCH_WEAVIATE names another Weaviate server): the capacity sweep runs over the
 * insights copy (`insights-lancedb-full`), whose posts also carry topics, so ListTrends has trends to rank.
 */
export function targetFor(backend: Backend, tag: string, weaviate?: BenchWeaviate): BackendTarget {
  if (backend === "lancedb") {
    const name = process.env.THREADSIGHT_BENCH_LANCEDB ?? `lancedb-${tag}`;
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new Error(`THREADSIGHT_BENCH_LANCEDB must be letters, digits, "-" or "_", got "${name}"`);
    const dataDir = path.join(BENCH_DIR, name);
    return { backend, dataDir, env: { THREADSIGHT_DATA_DIR: dataDir } };
  }
  if (weaviate === undefined) throw new Error("weaviate target needs a running Weaviate");
  // Named after the server ("weaviate-full" for the default one): the ingest checkpoints kept
  // here describe what that server holds, so another server must not share them.
  const dataDir = path.join(BENCH_DIR, `${weaviate.name}-${tag}`);
  const collection = `BenchPosts${tag.replace(/[^A-Za-z0-9]/g, "")}`;
  return {
    backend,
    dataDir,
    collection,
    env: {
      THREADSIGHT_DATA_DIR: dataDir,
      WEAVIATE_URL: weaviate.httpUrl,
      WEAVIATE_GRPC_URL: weaviate.grpcUrl,
      WEAVIATE_COLLECTION: collection,
    },
  };
}

/** A not yet opened index for the target, configured exactly as the service would be. */
export function indexFor(target: BackendTarget, use: IndexUse = {}): Promise<SearchIndex> {
  return openSearchIndex(loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, ...target.env }), use);
}
