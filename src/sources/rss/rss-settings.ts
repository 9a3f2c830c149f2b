/**
 * Settings of an RSS/Atom source: the feed's URL, the subforum and source its posts are filed
 * under, and whether links to Reddit or Hacker News threads take those sites' ids (so a
 * subreddit's RSS and a Reddit dump meet on one post).
 */
import { AppError } from "../../errors/app-error.js";
import { onlyFields, optString, optUrl, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated feed settings. */
export interface RssSettings {
  url: string;
  /** The `source` of posts not recognised as Reddit or HN threads; ids are `<source>:<host>:<hash>`. */
  source: string;
  subforum: string | undefined;
  /** Give thread links of reddit.com and news.ycombinator.com those sites' own post ids. */
  matchSiteIds: boolean;
}

/** Checks and normalises raw settings. */
export function rssSettings(raw: unknown): RssSettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["url", "source", "subforum", "matchSiteIds"]);
  const url = optUrl(s, "url");
  if (url === undefined)
    throw new AppError("MISSING_FIELD", "settings.url is required (the feed's address)", { field: "settings.url" });
  const match = s["matchSiteIds"];
  if (match !== undefined && typeof match !== "boolean")
    throw new AppError("WRONG_TYPE", "settings.matchSiteIds must be true or false", { field: "settings.matchSiteIds" });
  return {
    url,
    source:
      optString(s, "source", /^[a-z0-9][a-z0-9_-]{0,31}$/, "must be 1-32 lowercase letters, digits, - or _") ?? "rss",
    subforum: optString(s, "subforum"),
    matchSiteIds: match ?? true,
  };
}
