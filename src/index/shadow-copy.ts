/**
 * The two copies of the posts a `threadsight reembed` works with: the live one, which searches
 * and ingests keep using, and the shadow it fills with vectors of the new encoder. Each backend
 * says how the shadow is named, how the configured index is pointed at it in one atomic step,
 * and how other writers are kept out while the reembed takes its last catch-up pass.
 *
 * - LanceDB: the shadow is a second table in the same directory; the switch rewrites the
 *   directory's table pointer (lancedb/active-table.ts); the directory's writer lock keeps
 *   ingests out of the last pass, so nothing they write can land in the old table unseen.
 * - Weaviate: the shadow is a second collection; WEAVIATE_COLLECTION becomes (or already is) an
 *   alias, and the switch points it at the shadow (weaviate/alias.ts). Weaviate has no
 *   cross-process writer lock, so a process that opened the old collection before the switch can
 *   still write to it until it is dropped; the reembed takes one more pass after the switch.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "@lancedb/lancedb";
import type { Config } from "../config.js";
import { activeTable, setActiveTable } from "./lancedb/active-table.js";
import { LanceDbIndex } from "./lancedb/lancedb-index.js";
import { readMeta } from "./lancedb/schema.js";
import { WriterLock } from "./lancedb/writer-lock.js";
import { weaviateOptions } from "./open-index.js";
import type { SearchIndex } from "./search-index.js";
import { IndexUnavailableError } from "./search-index.js";
import { isAlias, resolveCollection } from "./weaviate/alias.js";
import { connectWeaviate } from "./weaviate/connect.js";
import { parseMeta } from "./weaviate/schema.js";
import { WeaviateIndex } from "./weaviate/weaviate-index.js";

/** The encoder an index's vectors come from. */
export interface VectorModel {
  embeddingModel: string;
  dimensions: number;
}

/** The live copy and the shadow of one reembed; see the module comment. */
export interface ShadowCopy {
  readonly backend: "lancedb" | "weaviate";
  /** The live copy's table or collection. */
  readonly liveName: string;
  /** The shadow's table or collection. */
  readonly shadowName: string;
  /** The model recorded by the live copy; undefined when there is no index yet. */
  readonly stored: VectorModel | undefined;
  /**
   * True when a process that opened the live copy before the switch may still write to it
   * afterwards (Weaviate), so the reembed takes a last pass between the switch and the drop.
   */
  readonly writesAfterSwitch: boolean;
  /** The live copy as a plain index (no rollup upkeep: the reembed only reads it), not opened. */
  live(): SearchIndex;
  /** The shadow as a plain index, not opened: the trend rollups already count its posts. */
  shadow(): SearchIndex;
  /** Whether the shadow exists (a run to resume). */
  shadowExists(): Promise<boolean>;
  /** Drops the shadow (one left by a run for another model). */
  discardShadow(): Promise<void>;
  /**
   * Waits until no other process writes the live copy and keeps them out until the returned
   * release is called; `onWait` is told the holder while it waits.
   */
  exclusive(onWait: (holder: string) => void, signal?: AbortSignal): Promise<() => void>;
  /** Points the configured index at the shadow, in one atomic step. */
  switchOver(): Promise<void>;
  /** Drops a copy by name, if it exists: the old live copy after the switch. */
  dropCopy(name: string): Promise<void>;
  close(): Promise<void>;
}

/** A model id as a name part: lower-case letters, digits and underscores. */
function slug(model: string): string {
  return model.toLowerCase().replace(/[^a-z0-9]+/g, "_");
}

/** The shadow copy of the configured index for vectors of `target`. */
export async function openShadowCopy(config: Config, target: VectorModel): Promise<ShadowCopy> {
  return config.weaviateUrl === undefined
    ? lanceShadow(config, target)
    : weaviateShadow(config, config.weaviateUrl, target);
}

async function lanceShadow(config: Config, target: VectorModel): Promise<ShadowCopy> {
  const dir = LanceDbIndex.dirFor(config.dataDir);
  const db = await connect(dir);
  const liveName = activeTable(dir);
  const names = await db.tableNames();
  let stored: VectorModel | undefined;
  if (names.includes(liveName)) {
    const table = await db.openTable(liveName);
    const meta = readMeta(await table.schema());
    table.close();
    stored = { embeddingModel: meta.embeddingModel ?? "", dimensions: meta.dimensions ?? 0 };
  }
  let shadowName = `posts_${slug(target.embeddingModel)}`;
  if (shadowName === liveName) shadowName += "_next";
  const lancedb = (table: string, indexing: "live" | "deferred"): SearchIndex =>
    new LanceDbIndex({ dir, fusion: config.hybridFusion, table, indexing });
  return {
    backend: "lancedb",
    liveName,
    shadowName,
    stored,
    writesAfterSwitch: false,
    live: () => lancedb(liveName, "live"),
    // Bulk load: the shadow's indexes are built once, when it is closed before the switch.
    shadow: () => lancedb(shadowName, "deferred"),
    shadowExists: async () => (await db.tableNames()).includes(shadowName),
    async discardShadow() {
      if ((await db.tableNames()).includes(shadowName)) await db.dropTable(shadowName);
    },
    async exclusive(onWait, signal) {
      const lock = new WriterLock(dir);
      for (;;) {
        signal?.throwIfAborted();
        try {
          lock.acquire();
          return () => lock.release();
        } catch (err) {
          if (!(err instanceof IndexUnavailableError)) throw err;
          onWait(err.message);
          await sleep(1_000, undefined, signal ? { signal } : {});
        }
      }
    },
    async switchOver() {
      setActiveTable(dir, shadowName);
    },
    async dropCopy(name) {
      if ((await db.tableNames()).includes(name)) await db.dropTable(name);
    },
    async close() {
      db.close();
    },
  };
}

async function weaviateShadow(config: Config, url: string, target: VectorModel): Promise<ShadowCopy> {
  const opts = weaviateOptions(config, url);
  const client = await connectWeaviate(opts);
  try {
    const alias = config.weaviateCollection;
    const liveName = await resolveCollection(client, alias);
    const aliased = await isAlias(client, alias);
    let stored: VectorModel | undefined;
    if (await client.collections.exists(liveName)) {
      const meta = parseMeta((await client.collections.use(liveName).config.get()).description);
      stored = meta ? { embeddingModel: meta.embeddingModel, dimensions: meta.dimensions } : undefined;
    }
    let shadowName = `${alias}_${slug(target.embeddingModel)}`;
    if (shadowName === liveName) shadowName += "_next";
    const weaviate = (collection: string): SearchIndex => new WeaviateIndex({ ...opts, collection });
    return {
      backend: "weaviate",
      liveName,
      shadowName,
      stored,
      writesAfterSwitch: aliased,
      live: () => weaviate(liveName),
      shadow: () => weaviate(shadowName),
      shadowExists: () => client.collections.exists(shadowName),
      async discardShadow() {
        if (await client.collections.exists(shadowName)) await client.collections.delete(shadowName);
      },
      async exclusive() {
        return () => {};
      },
      async switchOver() {
        if (aliased) {
          await client.alias.update({ alias, newTargetCollection: shadowName });
        } else {
          // A collection made before aliases were used: its name must be freed for the alias, so
          // for this one switch there is a moment in which the name resolves to nothing.
          await client.collections.delete(alias);
          await client.alias.create({ alias, collection: shadowName });
        }
      },
      async dropCopy(name) {
        // The alias's own name is no copy (after a first switch it names the shadow).
        if (name !== alias && (await client.collections.exists(name))) await client.collections.delete(name);
      },
      close: () => client.close(),
    };
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
}
