/**
 * The Hacker News source: an Algolia backfill of the configured range first (when one is set
 * and not finished), then the Firebase walk of new items, then the refresh of updated stories,
 * all within the poll's item cap.
 */
import type { Connector, PollContext, SourceBatch } from "../source.js";
import { backfill } from "./algolia-backfill.js";
import { refreshUpdated, walkNewItems } from "./firebase-walk.js";
import { parseHnCursor } from "./hn-cursor.js";
import { hnSettings } from "./hn-settings.js";

/** The connector registered for kind "hackernews". */
export const hackerNewsConnector: Connector = {
  kind: "hackernews",
  validate: hnSettings,
  describe(settings) {
    const s = hnSettings(settings);
    return s.backfillFrom === undefined ? s.firebaseUrl : `${s.firebaseUrl} (+ backfill via ${s.algoliaUrl})`;
  },
  async *poll(context: PollContext): AsyncGenerator<SourceBatch> {
    const settings = hnSettings(context.settings);
    const cursor = parseHnCursor(context.cursor);
    const budget = { items: context.maxItems };
    yield* backfill(context, settings, cursor, budget);
    yield* walkNewItems(context, settings, cursor, budget);
    if (settings.refreshUpdates && budget.items > 0) yield* refreshUpdated(context, settings, cursor, budget);
  },
};
