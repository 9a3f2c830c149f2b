/**
 * Reading stored posts directly: GetPosts (a batch lookup by id) and ExportPosts (every post
 * matching a filter, and with a query only those AggregatePosts counts for it, in export order).
 * Shared by every protocol; knows nothing of HTTP or Connect. An export pages through the index
 * by keyset (SearchIndex.scan, or scanSimilar with a query), so it holds one index page at a
 * time however many posts match.
 */
import type { Embedder } from "../enrich/embedder.js";
import { AppError } from "../errors/app-error.js";
import type { QueryFilter, ScanCursor, SearchIndex, SimilarityBound } from "../index/search-index.js";
import type { EnrichedPost } from "../model/post.js";
import { minSimilarityFor } from "./relevance-threshold.js";
import type { FilterParams } from "./request-rules.js";
import { requireText, resolveFilter, SUBFORUM_FORBIDDEN_CHARS } from "./request-rules.js";

/** Bounds of the post operations. */
export const POST_RULES = Object.freeze({
  /** Ids per GetPosts call. */
  idsMax: 100,
  /** Longest accepted id, characters. */
  idMaxChars: 300,
  /** Posts per export message. */
  exportMessagePosts: 100,
  /** Posts per index page of an export (a multiple of exportMessagePosts). */
  exportPagePosts: 1_000,
});

const CONTROL = new RegExp(`[${SUBFORUM_FORBIDDEN_CHARS}]`, "u");

/** What GetPosts found. */
export interface FoundPosts {
  /** In the order their ids were asked for. */
  posts: EnrichedPost[];
  /** Asked-for ids that are not stored, in request order. */
  notFound: string[];
}

/**
 * `ids` of GetPosts: 1..idsMax ids, each 1..idMaxChars characters without control characters,
 * none repeated. Ids are exact (not trimmed): a post id never starts or ends with a space.
 */
export function resolveIds(ids: readonly string[]): string[] {
  if (ids.length === 0) {
    throw new AppError("MISSING_FIELD", `ids is required: list 1..${POST_RULES.idsMax} post ids`, { field: "ids" });
  }
  if (ids.length > POST_RULES.idsMax) {
    throw new AppError("OUT_OF_RANGE", `ids must list at most ${POST_RULES.idsMax} post ids, got ${ids.length}`, {
      field: "ids",
    });
  }
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const at = `ids[${i}]`;
    const chars = [...id].length;
    if (chars === 0 || chars > POST_RULES.idMaxChars) {
      throw new AppError("INVALID_ARGUMENT", `${at} must be 1..${POST_RULES.idMaxChars} characters, got ${chars}`, {
        field: at,
      });
    }
    if (CONTROL.test(id))
      throw new AppError("INVALID_ARGUMENT", `${at} must not contain control characters`, { field: at });
    const first = seen.get(id);
    if (first !== undefined) {
      throw new AppError("INVALID_ARGUMENT", `${at} repeats ids[${first}] ("${id}"); list each id once`, {
        field: at,
      });
    }
    seen.set(id, i);
  });
  return [...ids];
}

/** An ExportPosts request after transport decoding. */
export interface ExportParams {
  /** The request's PostFilter, absent when not sent. */
  filter?: FilterParams | undefined;
  /** "" or one of EXPORT_FORMATS (REST picks the writer; gRPC only checks it). */
  format: string;
  /** The request's query; undefined when not sent (present but blank is refused). */
  query?: string | undefined;
}

/** One exported post; `similarity` (cosine, to the query) only in an export with a query. */
export interface ExportedPost {
  post: EnrichedPost;
  similarity?: number;
}

/**
 * `query` of ExportPosts: absent, or 1..queryMaxChars characters once trimmed. Unlike
 * AggregatePosts (where "" means no query) the field has presence, so a blank query is a
 * client mistake rather than a request for everything.
 */
export function resolveExportQuery(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") {
    throw new AppError(
      "INVALID_ARGUMENT",
      "query must not be blank when given; omit it to export every post the filter selects",
      { field: "query" },
    );
  }
  return requireText("query", value);
}

/** The post use cases. */
export class PostsCore {
  constructor(private readonly deps: { index: SearchIndex; embedder: Embedder }) {}

  /** The posts with these ids; a missing id is reported, never an error. */
  async get(ids: readonly string[], signal: AbortSignal): Promise<FoundPosts> {
    const wanted = resolveIds(ids);
    const posts = await this.deps.index.get(wanted, signal);
    const found = new Set(posts.map((p) => p.id));
    return { posts, notFound: wanted.filter((id) => !found.has(id)) };
  }

  /**
   * Checks the request, then returns the export: every matching post in (created, id) order, in
   * batches of at most exportMessagePosts; with a query, only the posts whose similarity to it
   * reaches the encoder's threshold (the set AggregatePosts counts), each with its similarity.
   * Checking first means a bad request fails the call before any post is sent.
   */
  export(params: ExportParams, signal: AbortSignal): AsyncIterable<ExportedPost[]> {
    resolveExportFormat(params.format);
    const resolved = resolveFilter(params.filter);
    const query = resolveExportQuery(params.query);
    if (query === undefined) return this.scanAll(resolved, signal);
    if (!this.deps.index.scanSimilar) {
      throw new AppError(
        "UNIMPLEMENTED",
        `ExportPosts with a query is not available on the ${this.deps.index.backend} index`,
      );
    }
    return this.scanSimilar(resolved, query, signal);
  }

  /** Every post the filter selects, page by page. */
  private async *scanAll(filter: QueryFilter, signal: AbortSignal): AsyncIterable<ExportedPost[]> {
    const { exportMessagePosts, exportPagePosts } = POST_RULES;
    let after: ScanCursor | undefined;
    for (;;) {
      const page = await this.deps.index.scan({ filter, limit: exportPagePosts, ...(after ? { after } : {}) }, signal);
      for (let i = 0; i < page.length; i += exportMessagePosts)
        yield page.slice(i, i + exportMessagePosts).map((post) => ({ post }));
      if (page.length < exportPagePosts) return;
      const last = page[page.length - 1]!;
      after = { created: last.created, id: last.id };
    }
  }

  /**
   * The posts the filter selects that are similar enough to `query`, page by page: each index
   * page examines the next exportPagePosts posts of the filter and returns those within the
   * threshold, so a page may return few or none and the pass still goes on. Matches are sent
   * in messages of exactly exportMessagePosts (the last one aside), so a message never spans a
   * metering block and a quota that runs out leaves the client a whole number of blocks.
   */
  private async *scanSimilar(filter: QueryFilter, query: string, signal: AbortSignal): AsyncIterable<ExportedPost[]> {
    const { index, embedder } = this.deps;
    const { exportMessagePosts, exportPagePosts } = POST_RULES;
    const vector = (await embedder.embed([query], signal))[0]!;
    const near: SimilarityBound = { vector, minSimilarity: minSimilarityFor(embedder.model) };
    // At most one index page plus less than one message.
    let pending: ExportedPost[] = [];
    let after: ScanCursor | undefined;
    for (;;) {
      const page = await index.scanSimilar!(
        { filter, near, limit: exportPagePosts, ...(after ? { after } : {}) },
        signal,
      );
      pending.push(...page.hits.map((h) => ({ post: h.post, similarity: h.score })));
      let sent = 0;
      for (; pending.length - sent >= exportMessagePosts; sent += exportMessagePosts)
        yield pending.slice(sent, sent + exportMessagePosts);
      pending = pending.slice(sent);
      if (page.next === undefined) break;
      after = page.next;
    }
    if (pending.length > 0) yield pending;
  }
}

/** The formats a REST export can be written in. */
export const EXPORT_FORMATS = ["ndjson", "csv"] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The `format` field of ExportPosts: "" (negotiate by Accept) or one of EXPORT_FORMATS. */
export function resolveExportFormat(value: string): ExportFormat | undefined {
  if (value === "") return undefined;
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `format must be one of ${EXPORT_FORMATS.map((f) => `"${f}"`).join(", ")} or absent, got "${value}"`,
      { field: "format" },
    );
  }
  return value as ExportFormat;
}
