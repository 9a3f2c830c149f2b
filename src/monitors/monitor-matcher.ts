/**
 * The percolator: matches a batch of written posts against every active monitor at once.
 *
 * - Vector side (kinds search and leads): one product of the batch's post vectors with the
 *   matrix of all monitors' query vectors gives every cosine at once. A monitor's relevance is
 *   `alpha * cosine + (1 - alpha) * coverage`, where coverage is the share of the query's words
 *   the post contains and alpha is SemanticSearch's hybrid weight for that query (short queries
 *   lean on words). Unlike a search, a single post has no candidate list to normalise against,
 *   so both sides are used as they are: this is the score min_relevance is compared with.
 * - Keyword side: the term index (keyword-index.ts) names the few monitors a post can match.
 */

import type { HybridAlphas } from "../core/hybrid-alpha.js";
import { alphaFor } from "../core/hybrid-alpha.js";
import { keywordText } from "../core/keyword-text.js";
import { passesQueryFilter } from "../core/post-filter.js";
import type { QueryFilter } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import type { KeywordNode } from "./keyword-ast.js";
import { KeywordIndex } from "./keyword-index.js";
import type { KeywordSubject } from "./keyword-match.js";
import { keywordSubject, matchedTerms } from "./keyword-match.js";
import { parseKeywords } from "./keyword-parser.js";
import { wordsOf } from "./keyword-words.js";
import { resolveMonitorFilter } from "./monitor-filters.js";
import { monitorQueryText } from "./monitor-query.js";
import type { StoredMonitor } from "./monitor-spec.js";

/** One post matched by one monitor, and why. */
export interface MonitorMatch {
  monitor: StoredMonitor;
  post: IndexedPost;
  /** search and leads: the relevance; keywords: 1. */
  relevance: number;
  /** keywords: the expression's terms the post contains. */
  matchedTerms: string[];
}

/** Query words shorter than this do not count toward coverage (articles, "a", "to"). */
const MIN_COVERAGE_WORD = 3;

interface VectorMonitor {
  monitor: StoredMonitor;
  filter: QueryFilter;
  alpha: number;
  words: string[];
}

/** The relevance of a post to a search or leads query. */
export function monitorRelevance(
  cosine: number,
  alpha: number,
  queryWords: readonly string[],
  s: KeywordSubject,
): number {
  const covered = queryWords.length === 0 ? 0 : queryWords.filter((w) => s.wordSet.has(w)).length / queryWords.length;
  return Math.min(1, Math.max(0, alpha * cosine + (1 - alpha) * covered));
}

/** The words of a query that count toward coverage. */
export function coverageWords(query: string): string[] {
  return [...new Set(wordsOf(keywordText(query)).filter((w) => w.length >= MIN_COVERAGE_WORD))];
}

/** Active monitors compiled for matching; build a new one when the monitors change. */
export class MonitorMatcher {
  private readonly vectorMonitors: VectorMonitor[] = [];
  /** Row-major, one row of `dimensions` per vector monitor. */
  private readonly matrix: Float32Array;
  private readonly keywords = new KeywordIndex();
  private readonly keywordMonitors = new Map<
    string,
    { monitor: StoredMonitor; filter: QueryFilter; ast: KeywordNode }
  >();

  /**
   * @param queryVectors the embedded {@link monitorQueryText} of every search and leads monitor,
   *   by monitor id (L2-normalised, like post vectors).
   */
  constructor(
    monitors: readonly StoredMonitor[],
    queryVectors: ReadonlyMap<string, Float32Array>,
    private readonly dimensions: number,
    alphas: HybridAlphas,
  ) {
    for (const m of monitors) {
      if (m.paused) continue;
      if (m.kind === "keywords") {
        const ast = parseKeywords(m.query);
        this.keywords.add(m.id, ast);
        this.keywordMonitors.set(m.id, { monitor: m, filter: resolveMonitorFilter(m.filter), ast });
      } else if (queryVectors.has(m.id)) {
        const text = monitorQueryText(m);
        this.vectorMonitors.push({
          monitor: m,
          filter: resolveMonitorFilter(m.filter),
          alpha: alphaFor(keywordText(text), alphas),
          words: coverageWords(text),
        });
      }
    }
    this.matrix = new Float32Array(this.vectorMonitors.length * dimensions);
    this.vectorMonitors.forEach((v, i) => this.matrix.set(queryVectors.get(v.monitor.id)!, i * dimensions));
  }

  /** Monitors compiled. */
  get size(): number {
    return this.vectorMonitors.length + this.keywordMonitors.size;
  }

  /** Every (monitor, post) match of the batch, in post order. */
  match(posts: readonly IndexedPost[]): MonitorMatch[] {
    const out: MonitorMatch[] = [];
    const d = this.dimensions;
    const m = this.vectorMonitors.length;
    const cosines = new Float32Array(m);
    for (const post of posts) {
      const s = keywordSubject(post);
      if (m > 0) {
        const v = post.vector;
        // The batch-times-monitors product, one post row at a time so it stays in cache.
        for (let j = 0; j < m; j++) {
          let dot = 0;
          const base = j * d;
          for (let k = 0; k < d; k++) dot += v[k]! * this.matrix[base + k]!;
          cosines[j] = dot;
        }
        for (let j = 0; j < m; j++) {
          const vm = this.vectorMonitors[j]!;
          const mon = vm.monitor;
          // Upper bound with full coverage: most monitors stop here without touching words.
          if (vm.alpha * cosines[j]! + (1 - vm.alpha) < mon.minRelevance) continue;
          if (mon.kind === "leads" && (post.leadType === "" || post.leadScore < mon.minScore)) continue;
          if (!passesQueryFilter(vm.filter, post)) continue;
          const relevance = monitorRelevance(cosines[j]!, vm.alpha, vm.words, s);
          if (relevance >= mon.minRelevance) out.push({ monitor: mon, post, relevance, matchedTerms: [] });
        }
      }
      if (this.keywordMonitors.size > 0) {
        for (const id of this.keywords.match(s)) {
          const km = this.keywordMonitors.get(id)!;
          if (!passesQueryFilter(km.filter, post)) continue;
          out.push({ monitor: km.monitor, post, relevance: 1, matchedTerms: matchedTerms(km.ast, s) });
        }
      }
    }
    return out;
  }
}
