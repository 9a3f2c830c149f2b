/**
 * An Embedder for the whole-corpora ingest into a second backend that answers from vectors the
 * kept embedded index already holds, and embeds the rest with the real model.
 *
 * Why: the ingest pipeline's counts (read, inserted, updated, skipped by reason) do not depend
 * on the embedder, but on a shared 2-core machine embedding the 93k posts a second time takes
 * hours. USE-lite is deterministic, so for a text the embedded index was built from, its stored
 * vector is the vector the model would return. Keys are the exact texts the pipeline embeds
 * (postEmbeddingText of the stored title and content); a text not found is embedded by
 * `fallback` (after waiting for it while an ingest into the source index is still running), so
 * the result never depends on the source index being complete. A sample of hits
 * is embedded again with the real model and compared (cosine), so the substitution is checked,
 * not assumed. Used only when the benchmark is asked to (INGEST_VECTORS_FROM).
 */
import * as lancedb from "@lancedb/lancedb";
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { POSTS_TABLE, readMeta } from "../../src/index/lancedb/schema.js";
import { cosine } from "../index/synthetic.js";

/** What the substitution did, for the report. */
export interface StoredVectorStats {
  /** Embedded index directory the vectors came from, and its row count. */
  from: string;
  sourceRows: number;
  /** Texts answered from stored vectors / embedded by the real model. */
  hits: number;
  misses: number;
  /** Hits re-embedded by the real model to check, and the lowest cosine between the two. */
  checked: number;
  minCosine: number;
}

/** An embedder over stored vectors, with its running statistics. */
export interface StoredVectorEmbedder extends Embedder {
  stats(): StoredVectorStats;
}

const FETCH_CHUNK = 500;
/** Every CHECK_EVERY-th hit is embedded again and compared. */
const CHECK_EVERY = 500;
/** While the source index still grows, a miss waits this long between looks for its text. */
const WAIT_MS = 20_000;
/** ...and at most this long in all before the real model embeds it. */
const MAX_WAIT_MS = 15 * 60_000;
/** The source counts as still growing when it grew within this window (a batch there can take minutes). */
const STALL_MS = 4 * 60_000;

/** A LanceDB vector cell (an Arrow vector or a plain array) as a Float32Array of its own. */
export function toVector(v: unknown): Float32Array {
  const arr = (v as { toArray?: () => ArrayLike<number> }).toArray?.() ?? (v as ArrayLike<number>);
  return Float32Array.from(arr);
}

const quote = (id: string): string => `'${id.replace(/'/g, "''")}'`;

/**
 * The source index's texts and vectors, read incrementally: each refresh lists the ids (cheap)
 * and fetches only the rows it has not seen, so it can follow an ingest still writing there.
 */
class SourceVectors {
  readonly byText = new Map<string, Float32Array>();
  private readonly ids = new Set<string>();

  constructor(readonly dir: string) {}

  /** Reads rows not seen yet; returns how many were new. */
  async refresh(model: string): Promise<number> {
    const db = await lancedb.connect(LanceDbIndex.dirFor(this.dir));
    const table = await db.openTable(POSTS_TABLE);
    try {
      const meta = readMeta(await table.schema());
      if (meta.embeddingModel !== model)
        throw new Error(`${this.dir} was built with "${meta.embeddingModel}", the ingest embeds with "${model}"`);
      await table.checkout(await table.version());
      const total = await table.countRows();
      const all = (await table
        .query()
        .select(["id"])
        .limit(total + 1)
        .toArray()) as Record<string, unknown>[];
      const fresh = all.map((r) => String(r.id)).filter((id) => !this.ids.has(id));
      for (let i = 0; i < fresh.length; i += FETCH_CHUNK) {
        const part = fresh.slice(i, i + FETCH_CHUNK);
        const rows = (await table
          .query()
          .where(`id IN (${part.map(quote).join(", ")})`)
          .select(["id", "title", "content", "vector"])
          .limit(part.length)
          .toArray()) as Record<string, unknown>[];
        for (const r of rows) {
          this.ids.add(String(r.id));
          this.byText.set(
            postEmbeddingText({ title: String(r.title), content: String(r.content) }),
            toVector(r.vector),
          );
        }
      }
      return fresh.length;
    } finally {
      table.close();
      db.close();
    }
  }
}

/**
 * Stored vectors from the embedded index in `dataDir`, `fallback` for the rest. When a text is
 * missing while that index is still growing (an ingest into it is running), the call waits for
 * it to arrive rather than embed it a second time; once the index stops growing, or after
 * MAX_WAIT_MS, the real model embeds what is still missing.
 */
export async function storedVectorEmbedder(
  dataDir: string,
  fallback: Embedder,
  log: (s: string) => void = () => {},
): Promise<StoredVectorEmbedder> {
  const source = new SourceVectors(dataDir);
  await source.refresh(fallback.model);
  const s: StoredVectorStats = {
    from: dataDir,
    sourceRows: source.byText.size,
    hits: 0,
    misses: 0,
    checked: 0,
    minCosine: 1,
  };
  // One refresh at a time, shared by every call waiting on it.
  let refreshing: Promise<number> | undefined;
  let grewAt = Date.now();
  const refresh = (): Promise<number> => {
    refreshing ??= source.refresh(fallback.model).finally(() => {
      refreshing = undefined;
      s.sourceRows = source.byText.size;
    });
    return refreshing;
  };
  const waitFor = async (texts: readonly string[], signal?: AbortSignal): Promise<void> => {
    const until = Date.now() + MAX_WAIT_MS;
    let missing = texts.filter((t) => !source.byText.has(t));
    while (missing.length > 0 && Date.now() < until && !signal?.aborted) {
      const grew = await refresh();
      if (grew > 0) grewAt = Date.now();
      missing = missing.filter((t) => !source.byText.has(t));
      if (missing.length === 0 || Date.now() - grewAt > STALL_MS) return;
      log(
        `stored vectors: ${missing.length} texts not in ${dataDir} yet (it grew by ${grew} since the last look); waiting`,
      );
      await new Promise((r) => setTimeout(r, WAIT_MS));
    }
  };
  return {
    model: fallback.model,
    dimensions: fallback.dimensions,
    async embed(texts, signal) {
      if (texts.some((t) => !source.byText.has(t))) await waitFor(texts, signal);
      const out: (Float32Array | undefined)[] = texts.map((t) => source.byText.get(t));
      const missing = texts.filter((_, i) => out[i] === undefined);
      const check: number[] = [];
      out.forEach((v, i) => {
        if (v === undefined) return;
        s.hits++;
        if (s.hits % CHECK_EVERY === 1) check.push(i);
      });
      const ask = [...missing, ...check.map((i) => texts[i]!)];
      const fresh = ask.length === 0 ? [] : await fallback.embed(ask, signal);
      // Counted once embedded: a call cut short by the stop signal embedded nothing.
      s.misses += missing.length;
      let m = 0;
      const result = out.map((v) => v ?? fresh[m++]!);
      check.forEach((i, k) => {
        s.checked++;
        s.minCosine = Math.min(s.minCosine, cosine(result[i]!, fresh[missing.length + k]!));
      });
      return result;
    },
    close: () => fallback.close(),
    stats: () => ({ ...s }),
  };
}

/** One sentence for the report saying where an ingest's vectors came from. */
export function storedVectorsNote(v: StoredVectorStats): string {
  return (
    `Vectors: this run's embedder answered ${v.hits.toLocaleString("en-US")} texts from the vectors stored in \`${v.from}\` (${v.sourceRows.toLocaleString("en-US")} distinct texts; USE-lite is deterministic, ` +
    `so a stored vector is what the model returns for the same text) and embedded ${v.misses.toLocaleString("en-US")} with USE-lite; ` +
    `${v.checked} sampled hits re-embedded with the model agreed to a cosine of at least ${v.minCosine.toFixed(6)}. ` +
    "Every other step is the real pipeline (read, parse, enrich, upsert, checkpoint), so the counts are the pipeline's; the posts/s of such a run is not an embedding throughput."
  );
}
