/**
 * SearchService handlers: map the request message to core parameters, call SearchCore, map the
 * outcome back. Nothing else happens here; rules and ranking live in core/.
 */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import {
  SemanticSearchResponseSchema,
  SemanticSearchResultSchema,
  VectorSearchResponseSchema,
  VectorSearchResultSchema,
} from "../../gen/threadsight/v1/search_pb.js";
import type { SearchCore } from "../core/search.js";
import type { EnrichedPost } from "../model/post.js";
import { timestamp } from "./timestamps.js";

function elapsedMs(started: number): number {
  return Math.round(performance.now() - started);
}

/** The fields both search result messages share (spec 2.1 and 2.2). */
function postFields(post: EnrichedPost) {
  return {
    id: post.id,
    title: post.title,
    content: post.content,
    subforum: post.subforum,
    upvotes: post.upvotes,
    comments: post.comments,
    created: timestamp(post.created),
    url: post.url,
  };
}

/** Creates the SearchService implementation over the search core. */
export function searchService(core: SearchCore): ServiceImpl<typeof SearchService> {
  return {
    async semanticSearch(req, ctx) {
      const started = performance.now();
      const out = await core.semantic(
        {
          query: req.query,
          limit: req.limit,
          subforums: req.subforums,
          pageToken: req.pageToken,
          filter: req.filter,
          sort: req.sort,
          minRelevance: req.minRelevance,
        },
        ctx.signal,
      );
      const results = out.hits.map(({ post, score }) =>
        create(SemanticSearchResultSchema, { ...postFields(post), relevance: score, sentiment: post.sentiment }),
      );
      return create(SemanticSearchResponseSchema, {
        query: req.query,
        results,
        total: results.length,
        processingTimeMs: elapsedMs(started),
        aiSummary: out.summary,
        nextPageToken: out.nextPageToken,
      });
    },

    async vectorSearch(req, ctx) {
      const started = performance.now();
      const out = await core.vector(
        {
          query: req.query,
          limit: req.limit,
          subforums: req.subforums,
          pageToken: req.pageToken,
          startDate: req.startDate,
          endDate: req.endDate,
          filter: req.filter,
          sort: req.sort,
        },
        ctx.signal,
      );
      const results = out.hits.map(({ post, score }) =>
        create(VectorSearchResultSchema, { ...postFields(post), similarityScore: score }),
      );
      return create(VectorSearchResponseSchema, {
        query: req.query,
        results,
        total: results.length,
        processingTimeMs: elapsedMs(started),
        nextPageToken: out.nextPageToken,
      });
    },
  };
}
