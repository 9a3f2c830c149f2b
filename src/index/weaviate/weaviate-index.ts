/**
 * The Weaviate SearchIndex (weaviate-client v3: REST for schema, gRPC for data and queries).
 *
 * - open() creates the collection or migrates it (adds missing properties) and checks the
 *   embedding model recorded in its description. A collection name that is an alias (as
 *   `threadsight reembed` leaves it, weaviate/alias.ts) opens the collection it points at.
 * - upsert() imports a batch with insertMany, in slices several at a time; objects have uuid v5
 *   ids derived from the post id, so a re-import replaces; per-object errors land in
 *   UpsertResult.failed.
 * - hybrid/nearVector/keyword map to Weaviate's hybrid (title^2 + content BM25, our vector,
 *   configured fusion type), nearVector (cosine; score = 1 - distance) and bm25. Keyword pages
 *   are cut here from a candidate window with ties broken by id (paging.ts); hybrid pages are
 *   cut by Weaviate within its fusion depth and come with their posts in the same call, and are
 *   cut here past it (weaviate/hybrid-window.ts), where only the chosen page's posts are read
 *   after. A hybrid caller's `choose` picks from the page by the lead fields. A page reads
 *   only the properties its `fields` name (the others come back empty, as from the embedded
 *   index).
 * - open() also sets the collection's flat-search cutoff (weaviate/schema.ts says why).
 * - The client takes no AbortSignal, so every call is raced with the caller's signal, and the
 *   signal is also handed to the gRPC calls themselves (withCallSignal), which it cancels; not
 *   to count()'s aggregate, which the client starts after an await (weaviate/connect.ts).
 * - Connection and server failures become IndexUnavailableError.
 */

import type { Collection, FilterValue, WeaviateClient } from "weaviate-client";
import { Filters, reconfigure } from "weaviate-client";
import type { EnrichedPost, IndexedPost } from "../../model/post.js";
import { checkAborted } from "../abort.js";
import type { AggregateQuery, AggregateResult } from "../aggregate-query.js";
import { engineCall, guardEngine, probe } from "../engine-call.js";
import type { FusionType } from "../fusion.js";
import { RRF_K } from "../fusion.js";
import { mismatchMessage } from "../model-mismatch.js";
import { keywordDepth, stablePage } from "../paging.js";
import {
  checkAlpha,
  checkBound,
  checkFilter,
  checkPage,
  checkScan,
  checkVector,
  MAX_RESULT_WINDOW,
} from "../query-checks.js";
import { ScanWindows } from "../scan-window.js";
import type {
  Hit,
  HybridQuery,
  IndexInfo,
  KeywordQuery,
  QueryFilter,
  ScanQuery,
  SearchIndex,
  SimilarScanPage,
  SimilarScanQuery,
  UpsertResult,
  VectorQuery,
} from "../search-index.js";
import { EmbeddingModelMismatchError, IndexUnavailableError } from "../search-index.js";
import { splitValid } from "../upsert-checks.js";
import { aggregateWeaviate, thresholdDistance } from "./aggregate.js";
import { resolveCollection } from "./alias.js";
import type { WeaviateEndpoint } from "./connect.js";
import { connectWeaviate, withCallSignal } from "./connect.js";
import type { KeysetFilterBuilder } from "./filter.js";
import { weaviateAfter, weaviateWhere } from "./filter.js";
import { hybridRequest } from "./hybrid-window.js";
import { watchLiveness } from "./liveness-watch.js";
import {
  BM25_PROPERTIES,
  collectionDefinition,
  DEFAULT_FLAT_SEARCH_CUTOFF,
  describeMeta,
  fromProperties,
  POST_PROPERTIES,
  parseMeta,
  postUuid,
  propertiesFor,
  RETURN_PROPERTIES,
  toProperties,
  vectorOf,
  WEAVIATE_LAYOUT,
} from "./schema.js";

export { parseHostPort } from "./connect.js";

const ENGINE = "Weaviate";
/** Posts per insertMany call within one upsert (bounds), and how many such calls run at once. */
const WRITE_SLICE_MIN = 50;
const WRITE_SLICE_MAX = 250;
const WRITE_LANES = 4;

/** Connection and collection settings (from Config). */
export interface WeaviateIndexOptions extends WeaviateEndpoint {
  collection: string;
  replicationFactor: number;
  shards: number;
  consistency: "ONE" | "QUORUM" | "ALL";
  fusion: FusionType;
  /** Filter matches below which a filtered vector search scans exactly (weaviate/schema.ts). */
  flatSearchCutoff?: number | undefined;
}

type Posts = Collection<undefined, string, undefined>;
type WObject = {
  uuid: string;
  properties: Record<string, unknown>;
  metadata?: { score?: number; distance?: number } | undefined;
};

/** The Weaviate adapter; see the module comment. */
export class WeaviateIndex implements SearchIndex {
  readonly backend = "weaviate";
  private client: WeaviateClient | undefined;
  private posts: Posts | undefined;
  private dimensions = 0;
  /** Scan window widths per filter (scan-window.ts). */
  private readonly scanWindows = new ScanWindows();

  constructor(private readonly opts: WeaviateIndexOptions) {}

  async open(embeddingModel: string, dimensions: number): Promise<IndexInfo> {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError(`dimensions must be a positive whole number, got ${dimensions}`);
    const client = await guardEngine(ENGINE, () => connectWeaviate(this.opts));
    try {
      const posts = await guardEngine(ENGINE, () => this.ensureCollection(client, embeddingModel, dimensions));
      this.client = client;
      this.posts = posts;
      this.dimensions = dimensions;
      return { embeddingModel, dimensions, count: await guardEngine(ENGINE, () => posts.length()) };
    } catch (err) {
      await client.close().catch(() => {});
      throw err;
    }
  }

  async upsert(batch: readonly IndexedPost[], signal?: AbortSignal): Promise<UpsertResult> {
    const posts = this.opened();
    checkAborted(signal);
    const { valid, failed } = splitValid(batch, this.dimensions);
    if (valid.length === 0) return { inserted: 0, updated: 0, failed };
    // Spread over every lane (an ingest batch of 256 goes as 4 x 64), within the slice bounds.
    const size = Math.min(WRITE_SLICE_MAX, Math.max(WRITE_SLICE_MIN, Math.ceil(valid.length / WRITE_LANES)));
    const slices: IndexedPost[][] = [];
    for (let i = 0; i < valid.length; i += size) slices.push(valid.slice(i, i + size));
    const result: UpsertResult = { inserted: 0, updated: 0, failed };
    const write = async (slice: IndexedPost[]): Promise<void> => {
      const uuids = slice.map((p) => postUuid(p.id));
      // Each call bound on its own: a lane's later slices start after an await (withCallSignal).
      const existing = await withCallSignal(signal, () => this.existing(uuids));
      checkAborted(signal);
      const res = await withCallSignal(signal, () =>
        posts.data.insertMany(
          slice.map((p, i) => ({ id: uuids[i]!, properties: toProperties(p), vectors: Array.from(p.vector) })),
        ),
      );
      slice.forEach((p, i) => {
        const error = res.errors[i];
        if (error) failed.push({ id: p.id, reason: error.message });
        else if (existing.has(uuids[i]!)) result.updated++;
        else result.inserted++;
      });
    };
    // A batch import spends most of its time waiting, not computing (a 1,000-object insertMany
    // kept the server ~40% busy: test/bench/scaling-import-probe.ts "parallel"), so slices go in
    // WRITE_LANES at a time. Ids are unique within the batch (splitValid), so the order in which
    // slices land cannot change the outcome.
    const run = async (): Promise<UpsertResult> => {
      let next = 0;
      let broken = false;
      // After one slice fails (or the caller gives up) no lane starts another.
      const lane = async (): Promise<void> => {
        try {
          while (!broken && next < slices.length) {
            checkAborted(signal);
            await write(slices[next++]!);
          }
        } catch (err) {
          broken = true;
          throw err;
        }
      };
      await Promise.all(Array.from({ length: Math.min(WRITE_LANES, slices.length) }, lane));
      return result;
    };
    return this.call(() => run(), signal);
  }

  async hybrid(query: HybridQuery, signal?: AbortSignal): Promise<Hit[]> {
    const posts = this.opened();
    checkPage(query);
    checkAlpha(query.alpha);
    const filters = this.where(query.filter);
    const vector = await query.vector;
    checkVector(vector, this.dimensions);
    // Weaviate cuts a page within its fusion depth itself; a deeper one is cut here from a
    // whole window (weaviate/hybrid-window.ts).
    const request = hybridRequest(query.offset, query.limit);
    // A page Weaviate cuts itself brings its posts along (a caller's choice among them is made
    // here from the same call); a window cut here reads only the page's posts.
    const ranked = this.opts.fusion === "rankedFusion";
    const res = await this.call(
      () =>
        posts.query.hybrid(query.text, {
          vector: Array.from(vector),
          alpha: query.alpha,
          fusionType: ranked ? "Ranked" : "RelativeScore",
          queryProperties: BM25_PROPERTIES,
          limit: request.limit,
          ...(request.offset > 0 ? { offset: request.offset } : {}),
          ...(filters ? { filters } : {}),
          returnMetadata: ["score"],
          // A caller that picks the page by lead fields gets them with the candidates.
          returnProperties: [
            ...new Set([
              ...(request.cutHere ? ["postId"] : propertiesFor(query.fields)),
              ...(query.choose ? ["leadType", "leadScore"] : []),
            ]),
          ],
        }),
      signal,
    );
    // Ranked fusion sums 1 / (60 + rank) per side; scaling by 60 maps it onto 0..1.
    const scale = ranked ? RRF_K : 1;
    const candidates = (res.objects as WObject[]).map((o) => ({
      id: String(o.properties.postId),
      score: clamp01((o.metadata?.score ?? 0) * scale),
      leadType: String(o.properties.leadType ?? ""),
      leadScore: Number(o.properties.leadScore ?? 0),
    }));
    const page = request.cutHere ? stablePage(candidates, (h) => h.id, query.offset, query.limit) : candidates;
    const chosen = query.choose ? query.choose(page) : page;
    if (request.cutHere) return this.withPosts(chosen, propertiesFor(query.fields), signal);
    // Only the properties `fields` names: the lead fields read for the choice stay out of a page
    // that did not ask for them, as from the embedded index.
    const names = propertiesFor(query.fields);
    const postOf = new Map((res.objects as WObject[]).map((o) => [String(o.properties.postId), o.properties]));
    return chosen.map(({ id, score }) => {
      const props = postOf.get(id)!;
      return { post: fromProperties(Object.fromEntries(names.map((n) => [n, props[n]]))), score };
    });
  }

  async nearVector(query: VectorQuery, signal?: AbortSignal): Promise<Hit[]> {
    const posts = this.opened();
    checkPage(query);
    const filters = this.where(query.filter);
    const vector = await query.vector;
    checkVector(vector, this.dimensions);
    // Equal vectors (cross-posts, identical texts) tie exactly, and Weaviate orders ties
    // differently from call to call, so pages cut by its offset could overlap and skip. The
    // page is cut here from a window reaching past it, ties by id (paging.ts).
    const res = await this.call(
      () =>
        posts.query.nearVector(Array.from(vector), {
          limit: Math.min(MAX_RESULT_WINDOW, keywordDepth(query.offset, query.limit)),
          ...(filters ? { filters } : {}),
          returnMetadata: ["distance"],
          returnProperties: propertiesFor(query.fields),
        }),
      signal,
    );
    const hits = (res.objects as WObject[]).map((o) => ({
      post: fromProperties(o.properties),
      score: 1 - (o.metadata?.distance ?? 1),
    }));
    return stablePage(hits, (h) => h.post.id, query.offset, query.limit);
  }

  async keyword(query: KeywordQuery, signal?: AbortSignal): Promise<Hit[]> {
    const posts = this.opened();
    checkPage(query);
    const filters = this.where(query.filter);
    checkAborted(signal);
    if (query.text.trim() === "") return [];
    const res = await this.call(
      () =>
        posts.query.bm25(query.text, {
          queryProperties: BM25_PROPERTIES,
          limit: keywordDepth(query.offset, query.limit),
          ...(filters ? { filters } : {}),
          returnMetadata: ["score"],
          returnProperties: ["postId"],
        }),
      signal,
    );
    const scored = (res.objects as WObject[]).map((o) => ({
      id: String(o.properties.postId),
      score: o.metadata?.score ?? 0,
    }));
    return this.withPosts(
      stablePage(scored, (h) => h.id, query.offset, query.limit),
      propertiesFor(query.fields),
      signal,
    );
  }

  async get(ids: readonly string[], signal?: AbortSignal): Promise<EnrichedPost[]> {
    this.opened();
    checkAborted(signal);
    const byId = await this.call(() => this.readPosts(ids), signal);
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async getIndexed(ids: readonly string[], signal?: AbortSignal): Promise<IndexedPost[]> {
    this.opened();
    checkAborted(signal);
    const objects = await this.call(() => this.fetchByIds(ids, RETURN_PROPERTIES, true), signal);
    const byId = new Map(
      objects.map((o) => {
        const post = fromProperties(o.properties);
        return [post.id, { ...post, vector: vectorOf(o) }] as const;
      }),
    );
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async scan(query: ScanQuery, signal?: AbortSignal): Promise<EnrichedPost[]> {
    checkScan(query);
    // One page among the posts created before `before` (all when absent), scan-window.ts.
    const read = async (before: number | undefined, properties: string[]) =>
      (await this.scanPage(query, properties, signal, before)).map((o) => fromProperties(o.properties));
    return this.scanWindows.page(JSON.stringify(query.filter ?? {}), query.after?.created, query.limit, {
      read: (before) => read(before, RETURN_PROPERTIES),
      lastCreated: async () => (await read(undefined, ["created", "postId"])).at(-1)?.created,
    });
  }

  /**
   * The scan's keyset page read as keys only (uuid, postId, created), then one `nearVector` over
   * just those objects that returns all of them with their distances, cut here at the aggregate's
   * distance bound: a vector search returns objects by distance, so the page is chosen first and
   * the search only decides which of its posts pass (and reads them whole). A page of at most
   * 1,000 objects is below the flat-search cutoff, so the search over it is exact. The bound is
   * not sent: with one, Weaviate pages through the search by offset, which returns a post twice
   * and leaves another out where distances tie. Only the passing posts are then read whole.
   */
  async scanSimilar(query: SimilarScanQuery, signal?: AbortSignal): Promise<SimilarScanPage> {
    const posts = this.opened();
    checkScan(query);
    checkBound(query.near, this.dimensions);
    const keys = await this.scanPage(query, ["postId", "created"], signal);
    if (keys.length === 0) return { hits: [] };
    const lastKey = fromProperties(keys[keys.length - 1]!.properties);
    const next = keys.length === query.limit ? { created: lastKey.created, id: lastKey.id } : undefined;
    checkAborted(signal);
    // Distances only, for every key; then the passing posts read whole.
    const scored = await this.call(
      () =>
        posts.query.nearVector(Array.from(query.near.vector), {
          limit: keys.length,
          filters: posts.filter.byId().containsAny(keys.map((o) => o.uuid)),
          returnMetadata: ["distance"],
          returnProperties: [] as never,
        }),
      signal,
    );
    const bound = thresholdDistance(query.near.minSimilarity);
    const distances = new Map<string, number>();
    for (const o of scored.objects as WObject[]) {
      const d = o.metadata?.distance;
      if (d !== undefined && d <= bound) distances.set(o.uuid, d);
    }
    if (distances.size === 0) return { hits: [], ...(next ? { next } : {}) };
    checkAborted(signal);
    const read = await this.call(
      () =>
        posts.query.fetchObjects({
          limit: distances.size,
          filters: posts.filter.byId().containsAny([...distances.keys()]),
          returnProperties: RETURN_PROPERTIES as never,
        }),
      signal,
    );
    const order = new Map(keys.map((o, i) => [o.uuid, i]));
    const hits = (read.objects as WObject[])
      .sort((a, b) => order.get(a.uuid)! - order.get(b.uuid)!)
      .map((o) => ({ post: fromProperties(o.properties), score: 1 - distances.get(o.uuid)! }));
    return { hits, ...(next ? { next } : {}) };
  }

  /**
   * One keyset page of `query` (checked), in (created, postId) order, with `properties`; only
   * posts created before `before` when it is given.
   */
  private async scanPage(
    query: ScanQuery,
    properties: string[],
    signal?: AbortSignal,
    before?: number,
  ): Promise<WObject[]> {
    const posts = this.opened();
    const where = this.where(query.filter);
    const after =
      query.after === undefined
        ? undefined
        : weaviateAfter(posts.filter as unknown as KeysetFilterBuilder, query.after);
    checkAborted(signal);
    const range =
      before === undefined ? undefined : posts.filter.byProperty("created").lessThan(new Date(Math.ceil(before)));
    const parts = [where, after, range].filter((f): f is FilterValue => f !== undefined);
    const filters = parts.length > 1 ? Filters.and(...parts) : parts[0];
    const res = await this.call(
      () =>
        posts.query.fetchObjects({
          limit: query.limit,
          ...(filters ? { filters } : {}),
          sort: posts.sort.byProperty("created" as never, true).byProperty("postId" as never, true),
          returnProperties: properties as never,
        }),
      signal,
    );
    return res.objects as WObject[];
  }

  async aggregate(query: AggregateQuery, signal?: AbortSignal): Promise<AggregateResult> {
    const posts = this.opened();
    checkFilter(query.filter);
    if (query.near) checkVector(query.near.vector, this.dimensions);
    checkAborted(signal);
    return aggregateWeaviate(
      posts,
      query,
      (work) => this.call(work, signal),
      this.opts.flatSearchCutoff ?? DEFAULT_FLAT_SEARCH_CUTOFF,
    );
  }

  async count(signal?: AbortSignal): Promise<number> {
    const posts = this.opened();
    return this.call(() => posts.length(), signal);
  }

  /**
   * One engine call: errors mapped, raced with the caller's signal, and watched for liveness so
   * a dead server answers 503 quickly instead of after the client's internal retries.
   */
  private call<T>(work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const client = this.client;
    // Ready, not merely live: a restarting node answers /live before it can serve queries, and
    // a query sent to it meanwhile would wait out the client's retries and the caller's deadline.
    const isLive = async (): Promise<boolean> => client !== undefined && (await client.isReady());
    return engineCall(ENGINE, () => withCallSignal(signal, () => watchLiveness(ENGINE, work(), isLive)), signal);
  }

  async ping(signal?: AbortSignal): Promise<boolean> {
    const client = this.client;
    return probe(async () => client !== undefined && client.isReady(), signal);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.posts = undefined;
    await client?.close();
  }

  private opened(): Posts {
    if (!this.posts) throw new Error("WeaviateIndex: call open() first");
    return this.posts;
  }

  private where(filter: QueryFilter | undefined): FilterValue | undefined {
    checkFilter(filter);
    return weaviateWhere(this.opened().filter, filter);
  }

  /** The posts (`properties` of each) for a ranked page of ids (windows are ranked on ids and scores only). */
  private async withPosts(
    page: readonly { id: string; score: number }[],
    properties: string[],
    signal: AbortSignal | undefined,
  ): Promise<Hit[]> {
    const byId = await this.call(
      () =>
        this.readPosts(
          page.map((h) => h.id),
          properties,
        ),
      signal,
    );
    return page.flatMap(({ id, score }) => {
      const post = byId.get(id);
      return post ? [{ post, score }] : [];
    });
  }

  private async readPosts(
    ids: readonly string[],
    properties: string[] = RETURN_PROPERTIES,
  ): Promise<Map<string, EnrichedPost>> {
    const objects = await this.fetchByIds(ids, properties, false);
    return new Map(objects.map((o) => [String(o.properties.postId), fromProperties(o.properties)]));
  }

  /** The stored objects of these post ids (each once), with `properties` and, when asked, the vector. */
  private async fetchByIds(
    ids: readonly string[],
    properties: string[],
    includeVector: boolean,
  ): Promise<(WObject & { vectors?: unknown })[]> {
    const posts = this.opened();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const res = await posts.query.fetchObjects({
      filters: posts.filter.byId().containsAny(unique.map(postUuid)),
      limit: unique.length,
      returnProperties: properties,
      includeVector,
    });
    return res.objects as (WObject & { vectors?: unknown })[];
  }

  /** Which of these uuids already exist (to split inserted from updated). */
  private async existing(uuids: string[]): Promise<Set<string>> {
    const posts = this.opened();
    const res = await posts.query.fetchObjects({
      filters: posts.filter.byId().containsAny(uuids),
      limit: uuids.length,
      returnProperties: ["postId"],
    });
    return new Set(res.objects.map((o) => o.uuid));
  }

  private async ensureCollection(client: WeaviateClient, embeddingModel: string, dimensions: number): Promise<Posts> {
    // WEAVIATE_COLLECTION, or the collection it is an alias of (weaviate/alias.ts).
    const name = await resolveCollection(client, this.opts.collection);
    const meta = { embeddingModel, dimensions, layout: WEAVIATE_LAYOUT };
    if (!(await client.collections.exists(name))) {
      try {
        await client.collections.create(collectionDefinition(name, meta, this.opts));
      } catch (err) {
        // Another process may have created it meanwhile; otherwise the create failed for real.
        if (!(await client.collections.exists(name))) throw err;
      }
    }
    const posts = client.collections.use(name).withConsistency(this.opts.consistency) as Posts;
    const config = await posts.config.get();
    const found = parseMeta(config.description);
    if (!found) {
      if ((await posts.length()) > 0) {
        throw new IndexUnavailableError(
          `Weaviate collection ${name} holds objects but no threadsight metadata; set WEAVIATE_COLLECTION to a collection threadsight created`,
        );
      }
      await posts.config.update({ description: describeMeta(meta) });
    } else if (found.layout !== WEAVIATE_LAYOUT) {
      throw new IndexUnavailableError(
        `Weaviate collection ${name} has layout ${found.layout}, this version uses ${WEAVIATE_LAYOUT}; re-ingest into a new WEAVIATE_COLLECTION`,
      );
    } else if (found.embeddingModel !== embeddingModel || found.dimensions !== dimensions) {
      throw new EmbeddingModelMismatchError(
        mismatchMessage(`Weaviate collection ${this.opts.collection}`, found.embeddingModel, found.dimensions, {
          embeddingModel,
          dimensions,
        }),
      );
    }
    // Migration: properties added by later versions are added to older collections.
    const have = new Set(config.properties.map((p) => p.name));
    for (const prop of POST_PROPERTIES) {
      if (!have.has(prop.name)) await posts.config.addProperty(prop);
    }
    // A mutable index setting: collections created before it (or under another value) get ours.
    const cutoff = this.opts.flatSearchCutoff ?? DEFAULT_FLAT_SEARCH_CUTOFF;
    if (flatSearchCutoffOf(config) !== cutoff) {
      await posts.config.update({
        vectorizers: reconfigure.vectorizer.update({
          vectorIndexConfig: reconfigure.vectorIndex.hnsw({ flatSearchCutoff: cutoff }),
        }),
      });
    }
    return posts;
  }
}

/** The flat-search cutoff of a collection's (single, unnamed) vector index, if it reports one. */
export function flatSearchCutoffOf(config: {
  vectorizers?: Record<string, { indexConfig?: unknown }>;
}): number | undefined {
  const index = config.vectorizers?.["default"]?.indexConfig as { flatSearchCutoff?: unknown } | undefined;
  return typeof index?.flatSearchCutoff === "number" ? index.flatSearchCutoff : undefined;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
