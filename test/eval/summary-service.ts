/**
 * SemanticSearch as the service runs it, for the summary evaluation: a LanceDB index filled as
 * ingest fills it (enriched: sentiment, dates), SearchCore with the service's alpha and the
 * default summarizer, and query vectors from the evaluation's embedding cache. Each answer also
 * carries the quote-list baseline's summary of the same hits (extractive.ts), for comparison.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { PageTokens } from "../../src/core/page-token.js";
import { querySubject } from "../../src/core/query-subject.js";
import { SearchCore } from "../../src/core/search.js";
import { extractiveSummary } from "../../src/core/summary/extractive.js";
import type { SummaryInput } from "../../src/core/summary/summarizer.js";
import { createExtractiveSummarizer } from "../../src/core/summary/themed-summary.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { Hit } from "../../src/index/search-index.js";
import type { Post } from "../../src/model/post.js";
import { CACHE_MODEL, embedCached } from "./embedding-cache.js";
import { fill } from "./retrieval.js";

/** One query's answer: the page, the service's summary and the quote-list baseline's of the same page. */
export interface ServiceAnswer {
  hits: Hit[];
  summary: string;
  quoteList: string;
}

/** The page as the summarizer reads it. */
export function summaryInputs(hits: readonly Hit[]): SummaryInput[] {
  return hits.map((h) => ({
    title: h.post.title,
    content: h.post.content,
    subforum: h.post.subforum,
    relevance: h.score,
    created: h.post.created,
    sentiment: h.post.sentiment,
  }));
}

/**
 * Indexes `posts` (with their cached `vectors`) and answers each query with SemanticSearch's first
 * page of `limit`; `label` names the query vectors in the embedding cache.
 */
export async function serviceAnswers(
  posts: readonly Post[],
  vectors: readonly Float32Array[],
  queries: readonly string[],
  label: string,
  limit = 10,
): Promise<ServiceAnswer[]> {
  const subjects = queries.map(querySubject);
  const queryVectors = await embedCached(label, subjects);
  const byText = new Map(subjects.map((s, i) => [s, queryVectors[i]!]));
  const embedder: Embedder = {
    model: CACHE_MODEL,
    dimensions: vectors[0]!.length,
    embed: async (texts) =>
      texts.map((t) => {
        const v = byText.get(t);
        if (v === undefined) throw new Error(`no cached vector for query "${t}"`);
        return v;
      }),
    close: async () => {},
  };
  const config = loadConfig({});
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-eval-summary-service-"));
  const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir), fusion: config.hybridFusion });
  try {
    await fill(index, posts, vectors);
    const core = new SearchCore({
      index,
      embedder,
      summarizer: createExtractiveSummarizer(),
      hybridAlpha: config.hybridAlpha,
      shortQueryAlpha: config.shortQueryAlpha,
      pageTokens: new PageTokens(randomBytes(32)),
    });
    const out: ServiceAnswer[] = [];
    for (const query of queries) {
      const page = await core.semantic({ query, limit, subforums: [], pageToken: "" }, new AbortController().signal);
      out.push({
        hits: page.hits,
        summary: page.summary,
        quoteList: extractiveSummary(query, summaryInputs(page.hits)),
      });
    }
    return out;
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
