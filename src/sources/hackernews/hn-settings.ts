/**
 * Settings of a Hacker News source: where the Firebase and Algolia APIs live (the public ones by
 * default; tests point them at the local fake), how far back the first poll starts, and an
 * optional date range to backfill through Algolia before following new items.
 */
import { AppError } from "../../errors/app-error.js";
import { onlyFields, optInt, optString, optUrl, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated Hacker News settings. */
export interface HnSettings {
  /** Firebase API base, without /v0. */
  firebaseUrl: string;
  /** Algolia HN Search base, without /api/v1. */
  algoliaUrl: string;
  /** Items below maxitem the first poll starts at (0: only items posted from then on). */
  backlog: number;
  /** Backfill range, epoch seconds, both exclusive; absent for no backfill. Given as ISO dates. */
  backfillFrom: number | undefined;
  backfillTo: number | undefined;
  /** Refresh score and comment counts of walked stories from /v0/updates.json. */
  refreshUpdates: boolean;
}

/** The public endpoints. */
export const HN_FIREBASE_URL = "https://hacker-news.firebaseio.com";
export const HN_ALGOLIA_URL = "https://hn.algolia.com";

/** An ISO date as epoch seconds; a number is taken as already converted (stored settings). */
function epochSeconds(settings: Record<string, unknown>, name: string): number | undefined {
  const given = settings[name];
  if (typeof given === "number" && Number.isSafeInteger(given) && given >= 0) return given;
  const raw = optString(settings, name);
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(ms))
    throw new AppError(
      "INVALID_DATE",
      `settings.${name} must be an ISO 8601 date such as 2024-01-31, got ${JSON.stringify(raw)}`,
      { field: `settings.${name}` },
    );
  return Math.floor(ms / 1000);
}

/** Checks and normalises raw settings. */
export function hnSettings(raw: unknown): HnSettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["firebaseUrl", "algoliaUrl", "backlog", "backfillFrom", "backfillTo", "refreshUpdates"]);
  const from = epochSeconds(s, "backfillFrom");
  const to = epochSeconds(s, "backfillTo");
  if ((from === undefined) !== (to === undefined))
    throw new AppError("INVALID_ARGUMENT", "settings.backfillFrom and settings.backfillTo must be given together", {
      field: from === undefined ? "settings.backfillFrom" : "settings.backfillTo",
    });
  if (from !== undefined && to !== undefined && from >= to)
    throw new AppError("INVALID_ARGUMENT", "settings.backfillFrom must be before settings.backfillTo", {
      field: "settings.backfillFrom",
    });
  const refresh = s["refreshUpdates"];
  if (refresh !== undefined && typeof refresh !== "boolean")
    throw new AppError("WRONG_TYPE", "settings.refreshUpdates must be true or false", {
      field: "settings.refreshUpdates",
    });
  return {
    firebaseUrl: optUrl(s, "firebaseUrl") ?? HN_FIREBASE_URL,
    algoliaUrl: optUrl(s, "algoliaUrl") ?? HN_ALGOLIA_URL,
    backlog: optInt(s, "backlog", 0, 100_000) ?? 0,
    backfillFrom: from,
    backfillTo: to,
    refreshUpdates: refresh ?? true,
  };
}
