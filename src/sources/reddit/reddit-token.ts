/**
 * The OAuth access token of a Reddit app: the client credentials grant (POST grant_type=
 * client_credentials to the token endpoint with HTTP basic auth of the client id and secret),
 * kept in the process until a minute before its `expires_in` runs out, so polls share one token
 * instead of asking for one each time. The token is never stored with the source.
 */
import { SourceRequestError } from "../http/http-error.js";
import type { PoliteHttpClient } from "../http/polite-client.js";
import type { RedditSettings } from "./reddit-settings.js";

/** Renewed this long before Reddit says the token expires. */
const EARLY_MS = 60_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

const tokens = new Map<string, CachedToken>();
const cacheKey = (s: RedditSettings): string => `${s.tokenUrl}\n${s.clientId}\n${s.clientSecret}`;

/** Forgets the token of these credentials (the API answered 401 with it). */
export function dropRedditToken(settings: RedditSettings): void {
  tokens.delete(cacheKey(settings));
}

/** A valid access token for `settings`, asked for when none is cached or it is about to expire. */
export async function redditToken(
  http: PoliteHttpClient,
  settings: RedditSettings,
  headers: Record<string, string>,
  now: () => number,
): Promise<string> {
  const cached = tokens.get(cacheKey(settings));
  if (cached !== undefined && cached.expiresAt - EARLY_MS > now()) return cached.token;
  const basic = Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString("base64");
  let body: Record<string, unknown> | undefined;
  try {
    body = (
      await http.getJson<Record<string, unknown>>(settings.tokenUrl, {
        headers: { ...headers, authorization: `Basic ${basic}` },
        form: { grant_type: "client_credentials" },
        key: "token",
      })
    ).body;
  } catch (err) {
    if (err instanceof SourceRequestError && (err.status === 401 || err.status === 403))
      throw new SourceRequestError(
        "client_error",
        `Reddit refused the client credentials (HTTP ${err.status}): check settings.clientId and settings.clientSecret, and that Reddit approved the app for API access`,
        undefined,
        { cause: err, status: err.status },
      );
    throw err;
  }
  const token = body?.["access_token"];
  const expiresIn = body?.["expires_in"];
  if (typeof token !== "string" || token === "" || typeof expiresIn !== "number")
    throw new SourceRequestError(
      "bad_response",
      `the token endpoint answered without access_token/expires_in: ${JSON.stringify(body).slice(0, 200)}`,
    );
  tokens.set(cacheKey(settings), { token, expiresAt: now() + expiresIn * 1000 });
  return token;
}
