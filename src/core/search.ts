/**
 * Semantic and vector search over the index: validate, embed the query, query the index, page,
 * summarise. Shared by every protocol; knows nothing of HTTP or Connect. Hits carry only the
 * result fields (index `fields: "result"`): responses and the summary read nothing else.
 */
import type { Embedder } from "../enrich/embedder.js";
import type { Hit, HybridCandidate, QueryFilter, SearchIndex } from "../index/search-index.js";
import { type HybridRun, thresholdedHits } from "./absolute-hits.js";
import { alphaFor } from "./hybrid-alpha.js";
import { keywordText } from "./keyword-text.js";
import type { PageTokens } from "./page-token.js";
import { requestFingerprint } from "./page-token.js";
import { querySubject } from "./query-subject.js";
import { queryVector } from "./query-vector.js";
import type { FilterParams, SortOrder } from "./request-rules.js";
import { RULES, requireText, resolveFilter, resolveLimit, resolveMinRelevance, resolveSort } from "./request-rules.js";
import { shorten } from "./snippet.js";
import { sortWindow } from "./sort-order.js";
import { MATCH_FLOOR, MATCH_WINDOW } from "./summary/match-floor.js";
import type { Summarizer } from "./summary/summarizer.js";

/** What search needs from the rest of the system. */
export interface SearchDeps {
  index: SearchIndex;
  /** Query embedder; expected to be cached (queries repeat). */
  embedder: Embedder;
  summarizer: Summarizer;
  /** Weight of the vector side in hybrid retrieval, 0..1. */
  hybridAlpha: number;
  /** The same weight for a query of one or two words (hybrid-alpha.ts). */
  shortQueryAlpha: number;
  /** Signs and checks page tokens. */
  pageTokens: PageTokens;
}

/** A semantic search request after transport decoding. */
export interface SemanticParams {
  query: string;
  limit: number | undefined;
  subforums: readonly string[];
  pageToken: string;
  /** The request's PostFilter, absent when not sent. */
  filter?: FilterParams | undefined;
  /** The request's sort order; "" for relevance. */
  sort?: string;
}

/** A semantic search request: a search request with an optional absolute relevance bar. */
export interface SemanticSearchParams extends SemanticParams {
  /** Only posts whose absolute relevance (absolute-relevance.ts) reaches this; absent for none. */
  minRelevance?: number | undefined;
}

/** A vector search request after transport decoding. */
export interface VectorParams extends SemanticParams {
  startDate: string;
  endDate: string;
}

/** One page of hits. */
export interface SearchPage {
  hits: Hit[];
  nextPageToken: string;
}

/** Semantic search outcome: a page plus its summary. */
export interface SemanticOutcome extends SearchPage {
  summary: string;
}

function paginate(tokens: PageTokens, hits: Hit[], limit: number, offset: number, fingerprint: string): SearchPage {
  const page = hits.slice(0, limit).map((h) => ({ ...h, post: { ...h.post, content: shorten(h.post.content) } }));
  const more = hits.length > limit && offset + 2 * limit <= RULES.pagingDepthMax;
  return { hits: page, nextPageToken: more ? tokens.encode(offset + limit, fingerprint) : "" };
}

/** The search use cases. */
export class SearchCore {
  constructor(private readonly deps: SearchDeps) {}

  /**
   * Hybrid retrieval with an ai_summary. `relevance` = the fused score in 0..1, or with
   * `minRelevance` the absolute relevance every returned post reaches (absolute-hits.ts).
   */
  async semantic(params: SemanticSearchParams, signal: AbortSignal): Promise<SemanticOutcome> {
    const query = requireText("query", params.query);
    const limit = resolveLimit(params.limit);
    const filter = resolveFilter(params.filter, { subforums: params.subforums });
    const sort = resolveSort(params.sort ?? "");
    const minRelevance = resolveMinRelevance(params.minRelevance);
    const fingerprint = requestFingerprint(["semantic", query, filter, sort, minRelevance ?? null]);
    const offset = this.deps.pageTokens.decode(params.pageToken, fingerprint, limit);
    // Retrieval reads what the query is about, not its opinion frame (query-subject.ts).
    const subject = querySubject(query);
    // Not awaited here: the index can run its keyword side while the query is embedded.
    const vector = queryVector(this.deps.embedder, subject, signal);
    const text = keywordText(subject);
    const alpha = alphaFor(text, this.deps);
    const run: HybridRun = (page) =>
      this.deps.index.hybrid({ text, vector, alpha, ...page, fields: "result", filter }, signal);
    const { hits, matched } =
      minRelevance === undefined
        ? await this.scoredHybrid(sort, offset, limit, run)
        : await thresholdedHits(
            { index: this.deps.index, subject, alphas: this.deps, vector, minRelevance, sort, offset, limit },
            run,
            signal,
          );
    const out = paginate(this.deps.pageTokens, hits, limit, offset, fingerprint);
    // The summary groups the matched results by their stored vectors (one read of the page's ids).
    // Over a relevance bar every result is matched: the caller's bar replaces the summary's floor.
    const matchedIds = out.hits
      .filter((h) => minRelevance !== undefined || h.score >= MATCH_FLOOR)
      .map((h) => h.post.id);
    const [stored, queryVec] = await Promise.all([
      matchedIds.length > 0 ? this.deps.index.getIndexed(matchedIds, signal) : Promise.resolve([]),
      vector,
    ]);
    const vectors = new Map(stored.map((p) => [p.id, p.vector]));
    const summary = await this.deps.summarizer.summarize(
      query,
      out.hits.map((h) => {
        const v = vectors.get(h.post.id);
        return {
          title: h.post.title,
          content: h.post.content,
          subforum: h.post.subforum,
          ...(minRelevance === undefined ? { relevance: h.score } : {}),
          created: h.post.created,
          sentiment: h.post.sentiment,
          ...(v !== undefined ? { vector: v } : {}),
        };
      }),
      signal,
      { ...matched, queryVector: queryVec },
    );
    return { ...out, summary };
  }

  /**
   * The hybrid hits from `offset` on, as {@link ordered} gives them, and how many fused candidates
   * reach the summary's match floor. On a relevance page the index scores up to
   * {@link MATCH_WINDOW} candidates from `offset` and reads only the page's posts (`choose`); the
   * candidates before `offset` all score at least as high, so they count when any here matches.
   * On a sorted page the sort window's hits are counted.
   */
  private async scoredHybrid(
    sort: SortOrder,
    offset: number,
    limit: number,
    run: (page: {
      limit: number;
      offset: number;
      choose?: (page: readonly HybridCandidate[]) => readonly HybridCandidate[];
    }) => Promise<Hit[]>,
  ): Promise<{ hits: Hit[]; matched: { matched: number; matchedAtLeast: boolean } }> {
    const count = (scores: readonly number[], asked: number, before: number) => {
      const n = scores.filter((s) => s >= MATCH_FLOOR).length;
      return {
        matched: n > 0 ? before + n : 0,
        matchedAtLeast: n > 0 && n === scores.length && scores.length >= asked,
      };
    };
    if (sort !== "relevance") {
      const window = await run({ limit: RULES.sortWindow, offset: 0 });
      const hits = sortWindow(window, sort).slice(offset, offset + limit + 1);
      return {
        hits,
        matched: count(
          window.map((h) => h.score),
          RULES.sortWindow,
          0,
        ),
      };
    }
    const asked = Math.max(limit + 1, MATCH_WINDOW);
    let scores: number[] = [];
    const hits = await run({
      limit: asked,
      offset,
      choose: (page) => {
        scores = page.map((c) => c.score);
        return page.slice(0, limit + 1);
      },
    });
    return { hits, matched: count(scores, asked, offset) };
  }

  /** Pure embedding similarity, optionally within an inclusive range of UTC days and other filters. */
  async vector(params: VectorParams, signal: AbortSignal): Promise<SearchPage> {
    const query = requireText("query", params.query);
    const limit = resolveLimit(params.limit);
    const filter: QueryFilter = resolveFilter(params.filter, {
      subforums: params.subforums,
      startDate: params.startDate,
      endDate: params.endDate,
    });
    const sort = resolveSort(params.sort ?? "");
    const fingerprint = requestFingerprint(["vector", query, filter, sort]);
    const offset = this.deps.pageTokens.decode(params.pageToken, fingerprint, limit);
    // Handed over as a promise: the embedded index reads its search plan meanwhile.
    const vector = queryVector(this.deps.embedder, query, signal);
    const hits = await this.ordered(sort, offset, limit, (page) =>
      this.deps.index.nearVector({ vector, ...page, fields: "result", filter }, signal),
    );
    return paginate(this.deps.pageTokens, hits, limit, offset, fingerprint);
  }

  /**
   * The hits from `offset` on (one more than the page, to tell whether another follows), in
   * `sort` order: relevance pages come from the index as they are; any other order sorts the
   * index's most relevant matches (sort-order.ts).
   */
  private async ordered(
    sort: SortOrder,
    offset: number,
    limit: number,
    run: (page: { limit: number; offset: number }) => Promise<Hit[]>,
  ): Promise<Hit[]> {
    if (sort === "relevance") return run({ limit: limit + 1, offset });
    const window = await run({ limit: RULES.sortWindow, offset: 0 });
    return sortWindow(window, sort).slice(offset, offset + limit + 1);
  }
}
