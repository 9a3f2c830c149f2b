/**
 * The percolator: matches a batch of written posts against every active monitor at once.
 *
 * - Vector side (kinds search and leads): one product of the batch's post vectors with the
 *   matrix of all monitors' query vectors (query-product.ts) gives every cosine at once. A monitor's relevance is
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
import { queryProducts } from "./query-product.js";

/** One post matched by one monitor, and why. */
export interface MonitorMatch {
  monitor: StoredMonitor;
  post: IndexedPost;
  /** search and leads: the relevance; keywords: 1. */
  relevance: number;
  /** keywords: the expression's terms the post contains. */
  matchedTerms: string[];
}

/**
 * How far below a threshold the batch's estimate may fall and still be scored exactly: the
 * estimate is the same arithmetic, so this only absorbs rounding, never decides a match.
 */
const RELEVANCE_SLACK = 1e-9;

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
  // A counting loop, not filter(): this runs for most (post, monitor) pairs of every batch.
  let hits = 0;
  for (const w of queryWords) if (s.wordSet.has(w)) hits++;
  const covered = queryWords.length === 0 ? 0 : hits / queryWords.length;
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
  /** Per vector monitor, by position: its threshold, hybrid weight and number of coverage words. */
  private readonly minRelevance: Float64Array;
  private readonly alpha: Float64Array;
  private readonly wordCount: Int32Array;
  /** Coverage word -> positions of the vector monitors whose query has it. */
  private readonly wordMonitors = new Map<string, number[]>();
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
    this.minRelevance = new Float64Array(this.vectorMonitors.length);
    this.alpha = new Float64Array(this.vectorMonitors.length);
    this.wordCount = new Int32Array(this.vectorMonitors.length);
    this.vectorMonitors.forEach((v, i) => {
      this.matrix.set(queryVectors.get(v.monitor.id)!, i * dimensions);
      this.minRelevance[i] = v.monitor.minRelevance;
      this.alpha[i] = v.alpha;
      this.wordCount[i] = v.words.length;
      for (const w of v.words) {
        const list = this.wordMonitors.get(w);
        if (list === undefined) this.wordMonitors.set(w, [i]);
        else list.push(i);
      }
    });
  }

  /** Monitors compiled. */
  get size(): number {
    return this.vectorMonitors.length + this.keywordMonitors.size;
  }

  /** The batch-times-monitors product: row i holds post i's cosine with every vector monitor. */
  private cosines(posts: readonly IndexedPost[]): Promise<Float32Array> {
    const d = this.dimensions;
    const batch = new Float32Array(posts.length * d);
    posts.forEach((p, i) => {
      if (p.vector.length !== d)
        throw new Error(`post ${p.id} has a ${p.vector.length}-value vector; the monitors' queries have ${d}`);
      batch.set(p.vector, i * d);
    });
    return queryProducts(batch, posts.length, this.matrix, this.vectorMonitors.length, d);
  }

  /** Every (monitor, post) match of the batch, in post order. */
  async match(posts: readonly IndexedPost[]): Promise<MonitorMatch[]> {
    const out: MonitorMatch[] = [];
    const m = this.vectorMonitors.length;
    const cosines = m > 0 ? await this.cosines(posts) : undefined;
    const hits = new Int32Array(m);
    for (const [i, post] of posts.entries()) {
      const s = keywordSubject(post);
      if (cosines !== undefined) {
        // Coverage for every monitor at once: each of the post's words counts toward the
        // monitors whose query has it, so no monitor's word list is walked per post.
        hits.fill(0);
        for (const w of s.wordSet) {
          const list = this.wordMonitors.get(w);
          if (list !== undefined) for (const j of list) hits[j]!++;
        }
        const row = i * m;
        for (let j = 0; j < m; j++) {
          const cosine = cosines[row + j]!;
          const alpha = this.alpha[j]!;
          const words = this.wordCount[j]!;
          // monitorRelevance's arithmetic on the counts, over typed arrays only; most pairs end here.
          const estimate = Math.min(
            1,
            Math.max(0, alpha * cosine + (1 - alpha) * (words === 0 ? 0 : hits[j]! / words)),
          );
          if (estimate + RELEVANCE_SLACK < this.minRelevance[j]!) continue;
          const vm = this.vectorMonitors[j]!;
          const mon = vm.monitor;
          if (mon.kind === "leads" && (post.leadType === "" || post.leadScore < mon.minScore)) continue;
          if (!passesQueryFilter(vm.filter, post)) continue;
          const relevance = monitorRelevance(cosine, alpha, vm.words, s);
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
