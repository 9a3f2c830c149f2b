/**
 * The percolator: matches a batch of written posts against every active monitor at once.
 *
 * - Vector side (kinds search and leads): one product of the batch's post vectors with the
 *   matrix of all monitors' query vectors (query-product.ts) gives every cosine at once. A
 *   monitor's relevance is the absolute relevance (core/absolute-relevance.ts): `alpha * cosine
 *   + (1 - alpha) * coverage`, where coverage is the share of the query's words the post
 *   contains and alpha is the hybrid weight for that query (short queries lean on words). A
 *   search monitor compares it with its min_relevance; a leads monitor is judged exactly as
 *   FindLeads judges a candidate (the model's floor and the subject rule), so the two agree.
 * - Keyword side: the term index (keyword-index.ts) names the few monitors a post can match.
 */

import type { LeadFloor, RelevanceQuery } from "../core/absolute-relevance.js";
import { absoluteRelevance, coverage, judgeLead, leadFloorFor, relevanceQuery } from "../core/absolute-relevance.js";
import type { HybridAlphas } from "../core/hybrid-alpha.js";
import { passesQueryFilter } from "../core/post-filter.js";
import type { QueryFilter } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import type { KeywordNode } from "./keyword-ast.js";
import { KeywordIndex } from "./keyword-index.js";
import type { KeywordSubject } from "./keyword-match.js";
import { keywordSubject, matchedTerms } from "./keyword-match.js";
import { parseKeywords } from "./keyword-parser.js";
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

interface VectorMonitor {
  monitor: StoredMonitor;
  filter: QueryFilter;
  query: RelevanceQuery;
}

/** The relevance of a post to a search or leads query (the absolute relevance). */
export function monitorRelevance(cosine: number, query: RelevanceQuery, s: KeywordSubject): number {
  return absoluteRelevance(cosine, query.alpha, coverage(query.words, s.wordSet));
}

/**
 * Posts matched between two turns of the event loop. Matching runs on the thread that also hands
 * the encoder workers their next texts; giving the loop a turn this often keeps them fed while a
 * large batch is matched against many monitors.
 */
const POSTS_PER_TURN = 64;

/** Lets pending callbacks (worker replies, I/O) run before the next slice of work. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Active monitors compiled for matching; build a new one when the monitors change. */
export class MonitorMatcher {
  private readonly vectorMonitors: VectorMonitor[] = [];
  /** Row-major, one row of `dimensions` per vector monitor. */
  private readonly matrix: Float32Array;
  /**
   * Per vector monitor, by position: its threshold (min_relevance, or for leads the floor),
   * hybrid weight and number of coverage words.
   */
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

  /** The leads floor of the vectors' model, as FindLeads applies it. */
  private readonly leadFloor: LeadFloor;

  /**
   * @param queryVectors the embedded {@link monitorQueryText} of every search and leads monitor,
   *   by monitor id (L2-normalised, like post vectors).
   * @param model the embedding model id of the vectors, which picks the leads floor.
   */
  constructor(
    monitors: readonly StoredMonitor[],
    queryVectors: ReadonlyMap<string, Float32Array>,
    private readonly dimensions: number,
    alphas: HybridAlphas,
    model: string,
  ) {
    this.leadFloor = leadFloorFor(model);
    for (const m of monitors) {
      if (m.paused) continue;
      if (m.kind === "keywords") {
        const ast = parseKeywords(m.query);
        this.keywords.add(m.id, ast);
        this.keywordMonitors.set(m.id, { monitor: m, filter: resolveMonitorFilter(m.filter), ast });
      } else if (queryVectors.has(m.id)) {
        this.vectorMonitors.push({
          monitor: m,
          filter: resolveMonitorFilter(m.filter),
          query: relevanceQuery(monitorQueryText(m), alphas),
        });
      }
    }
    this.matrix = new Float32Array(this.vectorMonitors.length * dimensions);
    this.minRelevance = new Float64Array(this.vectorMonitors.length);
    this.alpha = new Float64Array(this.vectorMonitors.length);
    this.wordCount = new Int32Array(this.vectorMonitors.length);
    this.vectorMonitors.forEach((v, i) => {
      this.matrix.set(queryVectors.get(v.monitor.id)!, i * dimensions);
      this.minRelevance[i] = v.monitor.kind === "leads" ? this.leadFloor.floor : v.monitor.minRelevance;
      this.alpha[i] = v.query.alpha;
      this.wordCount[i] = v.query.words.length;
      for (const w of v.query.words) {
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
      if (i > 0 && i % POSTS_PER_TURN === 0) await yieldToLoop();
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
          // The absolute relevance's arithmetic on the counts, over typed arrays only; most pairs end here.
          const estimate = Math.min(
            1,
            Math.max(0, alpha * cosine + (1 - alpha) * (words === 0 ? 0 : hits[j]! / words)),
          );
          if (estimate + RELEVANCE_SLACK < this.minRelevance[j]!) continue;
          const vm = this.vectorMonitors[j]!;
          const mon = vm.monitor;
          if (mon.kind === "leads" && (post.leadType === "" || post.leadScore < mon.minScore)) continue;
          if (!passesQueryFilter(vm.filter, post)) continue;
          if (mon.kind === "leads") {
            // FindLeads' own judgement of a candidate: the floor and the subject rule.
            const j = judgeLead(vm.query, cosine, s.wordSet, this.leadFloor);
            if (j.about) out.push({ monitor: mon, post, relevance: j.relevance, matchedTerms: [] });
            continue;
          }
          const relevance = monitorRelevance(cosine, vm.query, s);
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
