/**
 * Settings of a Stack Exchange source: the site to poll (`startups`, `stackoverflow`, ...), the
 * community its post ids are made under (the dump reader's `community`, so dump and live ids
 * agree), an optional app key (a higher daily quota), the filter, and where the API lives.
 */

import { onlyFields, optString, optUrl, reqString, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated Stack Exchange settings. */
export interface SeSettings {
  site: string;
  community: string;
  key: string | undefined;
  /** A filter that includes `body`; the built-in `withbody` by default. */
  filter: string;
  /** API base, without /2.3. */
  apiUrl: string;
}

/** The public API. */
export const SE_API_URL = "https://api.stackexchange.com";

/**
 * Communities whose dump name differs from the API's site name: the collapsed-stacks archive of
 * startups.stackexchange.com calls it `startups_se`.
 */
const DUMP_COMMUNITY: Readonly<Record<string, string>> = { startups: "startups_se" };

/** Checks and normalises raw settings. */
export function seSettings(raw: unknown): SeSettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["site", "community", "key", "filter", "apiUrl"]);
  const site = reqString(s, "site", /^[a-z0-9.-]{1,64}$/, "must be an API site name such as startups or stackoverflow");
  return {
    site,
    community:
      optString(s, "community", /^[a-z0-9_.-]{1,64}$/, "must be lowercase letters, digits, _ . or -") ??
      DUMP_COMMUNITY[site] ??
      site,
    key: optString(s, "key"),
    filter: optString(s, "filter", /^[A-Za-z0-9!()*._-]{1,64}$/, "must be a filter name or id") ?? "withbody",
    apiUrl: optUrl(s, "apiUrl") ?? SE_API_URL,
  };
}
