/**
 * Settings of a Reddit source: the subreddit, the OAuth client credentials of an app Reddit has
 * approved for API access (client id and secret, used in the client credentials grant), the
 * Reddit username named in the User-Agent as Reddit's API rules ask, and where the token and API
 * endpoints live (the real ones by default; tests point them at the local fake).
 */
import { onlyFields, optInt, optString, optUrl, reqString, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated Reddit settings. */
export interface RedditSettings {
  subreddit: string;
  clientId: string;
  clientSecret: string;
  /** Named in the User-Agent (`... (by /u/<username>)`), as Reddit asks of API clients. */
  username: string | undefined;
  tokenUrl: string;
  apiUrl: string;
  /** Newest posts the first poll reads (0: only posts from then on). */
  backlog: number;
}

/** The public endpoints. */
export const REDDIT_TOKEN_URL = "https://www.reddit.com/api/v1/access_token";
export const REDDIT_API_URL = "https://oauth.reddit.com";

/** Checks and normalises raw settings. */
export function redditSettings(raw: unknown): RedditSettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["subreddit", "clientId", "clientSecret", "username", "tokenUrl", "apiUrl", "backlog"]);
  return {
    subreddit: reqString(s, "subreddit", /^[A-Za-z0-9_]{2,21}$/, "must be a subreddit name such as startups (no r/)"),
    clientId: reqString(s, "clientId"),
    clientSecret: reqString(s, "clientSecret"),
    username: optString(s, "username", /^[A-Za-z0-9_-]{3,20}$/, "must be a Reddit username (no u/)"),
    tokenUrl: optUrl(s, "tokenUrl") ?? REDDIT_TOKEN_URL,
    apiUrl: optUrl(s, "apiUrl") ?? REDDIT_API_URL,
    backlog: optInt(s, "backlog", 0, 100) ?? 0,
  };
}
