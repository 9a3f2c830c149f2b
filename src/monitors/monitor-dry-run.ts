/**
 * TestMonitor: runs a monitor over the posts of the last N days and returns the event payloads
 * it would have written, storing and sending nothing. The posts go through the live path's
 * MonitorMatcher, so a dry run and the percolator agree on every post both see.
 *
 * The posts of the period come from the index as one filtered vector query (the monitor's
 * filter plus the period, and the lead bar for kind leads): every post of the period when it
 * holds at most DRY_RUN_WINDOW of them, else the DRY_RUN_WINDOW nearest to the query by meaning.
 */
import type { HybridAlphas } from "../core/hybrid-alpha.js";
import { boundedInt } from "../core/request-rules.js";
import type { Embedder } from "../enrich/embedder.js";
import { MAX_RESULT_WINDOW } from "../index/query-checks.js";
import type { QueryFilter, SearchIndex } from "../index/search-index.js";
import type { IndexedPost } from "../model/post.js";
import { eventPayload } from "./monitor-event.js";
import { resolveMonitorFilter } from "./monitor-filters.js";
import { MonitorMatcher } from "./monitor-matcher.js";
import { monitorQueryText } from "./monitor-query.js";
import type { StoredMonitor } from "./monitor-spec.js";

/** Bounds and defaults of a dry run. */
export const DRY_RUN = Object.freeze({ daysDefault: 7, daysMax: 30, limitDefault: 20, limitMax: 100 });
/** Most posts one dry run examines. */
export const DRY_RUN_WINDOW = MAX_RESULT_WINDOW;

const MS_PER_DAY = 86_400_000;
/** Posts read with their vectors per index call. */
const READ_BATCH = 500;

/** What a dry run needs. */
export interface DryRunDeps {
  index: SearchIndex;
  embedder: Embedder;
  alphas: HybridAlphas;
  clock?: () => number;
}

/** One event a dry run found: the payload (as stored events hold it) and its post's time. */
export interface DryRunEvent {
  payload: string;
  postCreated: number;
}

/** The outcome of a dry run. */
export interface DryRunResult {
  /** Newest post first, at most `limit`. */
  events: DryRunEvent[];
  /** Posts of the period examined. */
  scanned: number;
  /** All matches among them (events holds the newest `limit`). */
  matched: number;
}

/** Runs monitors over recent posts without storing or sending anything. */
export class MonitorDryRun {
  private readonly clock: () => number;

  constructor(private readonly deps: DryRunDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /**
   * Runs `monitor` (validated; its channels and paused flag are ignored) over the last `days`
   * days. `days` 1..30 (default 7) and `limit` 1..100 (default 20) are checked here.
   */
  async run(
    monitor: StoredMonitor,
    days: number | undefined,
    limit: number | undefined,
    signal?: AbortSignal,
  ): Promise<DryRunResult> {
    const d = boundedInt("days", days, DRY_RUN.daysDefault, 1, DRY_RUN.daysMax);
    const n = boundedInt("limit", limit, DRY_RUN.limitDefault, 1, DRY_RUN.limitMax);
    const since = this.clock() - d * MS_PER_DAY;
    const own = resolveMonitorFilter(monitor.filter);
    const filter: QueryFilter = {
      ...own,
      createdFrom: Math.max(own.createdFrom ?? since, since),
      ...(monitor.kind === "leads" ? { minLeadScore: monitor.minScore } : {}),
    };
    // The live path's text (monitor-query.ts), so both judge a post alike.
    const [vector] = await this.deps.embedder.embed([monitorQueryText(monitor)], signal);
    const hits = await this.deps.index.nearVector(
      { vector: vector!, filter, limit: DRY_RUN_WINDOW, offset: 0, fields: "result" },
      signal,
    );
    const active: StoredMonitor = { ...monitor, paused: false };
    const matcher = new MonitorMatcher(
      [active],
      new Map(monitor.kind === "keywords" ? [] : [[monitor.id, vector!]]),
      this.deps.embedder.dimensions,
      this.deps.alphas,
      this.deps.embedder.model,
    );
    const found: DryRunEvent[] = [];
    let scanned = 0;
    for (let i = 0; i < hits.length; i += READ_BATCH) {
      const ids = hits.slice(i, i + READ_BATCH).map((h) => h.post.id);
      const posts: IndexedPost[] = await this.deps.index.getIndexed(ids, signal);
      scanned += posts.length;
      for (const m of await matcher.match(posts))
        found.push({ payload: eventPayload(m, "test"), postCreated: m.post.created });
    }
    found.sort((a, b) => b.postCreated - a.postCreated);
    return { events: found.slice(0, n), scanned, matched: found.length };
  }
}
