/**
 * Turns the upsert outcome of a batch into outbox events: keeps a matcher compiled for the
 * active monitors (rebuilt when the store's version moves, embedding each search or leads
 * monitor's subject once, monitor-query.ts), matches the written posts, and appends the events.
 * The caller awaits it before moving its checkpoint past the batch, which is what makes an event
 * impossible to lose: until the last append commits, a rerun reads the batch again.
 */
import type { HybridAlphas } from "../core/hybrid-alpha.js";
import type { Embedder } from "../enrich/embedder.js";
import type { IndexedPost } from "../model/post.js";
import type { EventOrigin } from "./monitor-event.js";
import { eventPayloads } from "./monitor-event.js";
import { MonitorMatcher, yieldToLoop } from "./monitor-matcher.js";
import { monitorQueryText } from "./monitor-query.js";
import type { MonitorStore, StoredEvent } from "./monitor-store.js";

/**
 * Events written per append. A batch's events go in several appends so that no single
 * transaction holds the thread for long; nothing is lost by it, because the checkpoint still
 * moves only after the last append, and a rerun's appends skip the (monitor, post) events a
 * first run already stored, in the same order.
 */
export const EVENTS_PER_APPEND = 1000;

/** Called with the rows an upsert wrote (rejected ones left out). */
export type UpsertObserver = (rows: readonly IndexedPost[], origin: EventOrigin) => Promise<void>;

/** What the percolator needs. */
export interface PercolatorDeps {
  store: MonitorStore;
  embedder: Embedder;
  alphas: HybridAlphas;
  clock?: () => number;
  /** Told about each batch's new events (for logs and tests). */
  onEvents?: (events: readonly StoredEvent[]) => void;
}

/** Creates the observer the ingest pipeline and re-enrichment call after each upsert. */
export function monitorPercolator(deps: PercolatorDeps): UpsertObserver {
  const clock = deps.clock ?? Date.now;
  let version = -1;
  let matcher: MonitorMatcher | undefined;
  const vectors = new Map<string, Float32Array>();

  async function current(): Promise<MonitorMatcher> {
    const v = await deps.store.version();
    if (matcher !== undefined && v === version) return matcher;
    const monitors = await deps.store.active();
    const byVector = monitors.filter((m) => m.kind !== "keywords");
    const missing = [...new Set(byVector.map(monitorQueryText).filter((text) => !vectors.has(text)))];
    if (missing.length > 0) {
      const embedded = await deps.embedder.embed(missing);
      missing.forEach((text, i) => vectors.set(text, embedded[i]!));
    }
    const byMonitor = new Map(byVector.map((m) => [m.id, vectors.get(monitorQueryText(m))!]));
    matcher = new MonitorMatcher(monitors, byMonitor, deps.embedder.dimensions, deps.alphas, deps.embedder.model);
    version = v;
    return matcher;
  }

  return async (rows, origin) => {
    if (rows.length === 0) return;
    const m = await current();
    if (m.size === 0) return;
    const matches = await m.match(rows);
    if (matches.length === 0) return;
    const now = clock();
    for (let start = 0; start < matches.length; start += EVENTS_PER_APPEND) {
      if (start > 0) await yieldToLoop();
      const slice = matches.slice(start, start + EVENTS_PER_APPEND);
      const payloads = eventPayloads(slice, origin);
      const events = await deps.store.append(
        slice.map((x, i) => ({
          monitorId: x.monitor.id,
          postId: x.post.id,
          payload: payloads[i]!,
          channels: x.monitor.channels.length,
        })),
        now,
      );
      deps.onEvents?.(events);
    }
  };
}
