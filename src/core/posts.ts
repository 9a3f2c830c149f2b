/**
 * Reading stored posts directly: GetPosts (a batch lookup by id) and ExportPosts (every post
 * matching a filter, in export order). Shared by every protocol; knows nothing of HTTP or
 * Connect. An export pages through the index by keyset (SearchIndex.scan), so it holds one
 * index page at a time however many posts match.
 */
import { AppError } from "../errors/app-error.js";
import type { ScanCursor, SearchIndex } from "../index/search-index.js";
import type { EnrichedPost } from "../model/post.js";
import type { FilterParams } from "./request-rules.js";
import { resolveFilter, SUBFORUM_FORBIDDEN_CHARS } from "./request-rules.js";

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
}

/** The post use cases. */
export class PostsCore {
  constructor(private readonly deps: { index: SearchIndex }) {}

  /** The posts with these ids; a missing id is reported, never an error. */
  async get(ids: readonly string[], signal: AbortSignal): Promise<FoundPosts> {
    const wanted = resolveIds(ids);
    const posts = await this.deps.index.get(wanted, signal);
    const found = new Set(posts.map((p) => p.id));
    return { posts, notFound: wanted.filter((id) => !found.has(id)) };
  }

  /**
   * Checks the filter, then returns the export: every matching post in (created, id) order, in
   * batches of at most exportMessagePosts. Checking first means a bad filter fails the call
   * before any post is sent.
   */
  export(params: ExportParams, signal: AbortSignal): AsyncIterable<EnrichedPost[]> {
    resolveExportFormat(params.format);
    const resolved = resolveFilter(params.filter);
    const index = this.deps.index;
    return {
      async *[Symbol.asyncIterator]() {
        const { exportMessagePosts, exportPagePosts } = POST_RULES;
        let after: ScanCursor | undefined;
        for (;;) {
          const page = await index.scan(
            { filter: resolved, limit: exportPagePosts, ...(after ? { after } : {}) },
            signal,
          );
          for (let i = 0; i < page.length; i += exportMessagePosts) yield page.slice(i, i + exportMessagePosts);
          if (page.length < exportPagePosts) return;
          const last = page[page.length - 1]!;
          after = { created: last.created, id: last.id };
        }
      },
    };
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
