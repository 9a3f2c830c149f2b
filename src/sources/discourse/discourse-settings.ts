/**
 * Settings of a Discourse source: the forum's base URL (any Discourse forum), optional API
 * credentials (`Api-Key` with `Api-Username`, for private categories or higher rate limits),
 * and how many of the latest topics the first poll reads.
 */
import { AppError } from "../../errors/app-error.js";
import { onlyFields, optInt, optString, optUrl, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated Discourse settings. */
export interface DiscourseSettings {
  /** The forum's address, such as https://meta.discourse.org, without a trailing slash. */
  baseUrl: string;
  /** The forum host, the middle part of post ids (`discourse:<host>:<topic id>`). */
  host: string;
  apiKey: string | undefined;
  apiUsername: string | undefined;
  /** Topics of the latest list the first poll reads (0: only topics active from then on). */
  backlog: number;
}

/** Checks and normalises raw settings. */
export function discourseSettings(raw: unknown): DiscourseSettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["baseUrl", "host", "apiKey", "apiUsername", "backlog"]);
  const baseUrl = optUrl(s, "baseUrl");
  if (baseUrl === undefined)
    throw new AppError("MISSING_FIELD", "settings.baseUrl is required (the forum's address)", {
      field: "settings.baseUrl",
    });
  const apiKey = optString(s, "apiKey");
  const apiUsername = optString(s, "apiUsername");
  if ((apiKey === undefined) !== (apiUsername === undefined))
    throw new AppError("INVALID_ARGUMENT", "settings.apiKey and settings.apiUsername must be given together", {
      field: apiKey === undefined ? "settings.apiKey" : "settings.apiUsername",
    });
  return {
    baseUrl,
    // Stored with the settings so the ids do not change if the forum is later reached another way.
    host:
      optString(s, "host", /^[a-z0-9.-]{1,253}(:\d+)?$/, "must be a lowercase host name") ??
      new URL(baseUrl).host.toLowerCase(),
    apiKey,
    apiUsername,
    backlog: optInt(s, "backlog", 0, 1000) ?? 0,
  };
}
