/**
 * Settings of a Lemmy source: the instance to ask (any Lemmy instance), the community to follow
 * (`name`, or `name@other.instance` for a federated one the instance knows), and how many of the
 * newest posts the first poll reads.
 */
import { AppError } from "../../errors/app-error.js";
import { onlyFields, optInt, optString, optUrl, reqString, settingsObject } from "../settings-fields.js";
import type { SourceSettings } from "../source.js";

/** Validated Lemmy settings. */
export interface LemmySettings {
  /** The instance's address, such as https://lemmy.ml, without a trailing slash. */
  instanceUrl: string;
  /** The instance host, for ids of posts whose ap_id is not a Lemmy post URL. */
  host: string;
  community: string;
  /** Newest posts the first poll reads (0: only posts published from then on). */
  backlog: number;
}

/** Checks and normalises raw settings. */
export function lemmySettings(raw: unknown): LemmySettings & SourceSettings {
  const s = settingsObject(raw);
  onlyFields(s, ["instanceUrl", "host", "community", "backlog"]);
  const instanceUrl = optUrl(s, "instanceUrl");
  if (instanceUrl === undefined)
    throw new AppError("MISSING_FIELD", "settings.instanceUrl is required (the instance's address)", {
      field: "settings.instanceUrl",
    });
  return {
    instanceUrl,
    host:
      optString(s, "host", /^[a-z0-9.-]{1,253}(:\d+)?$/, "must be a lowercase host name") ??
      new URL(instanceUrl).host.toLowerCase(),
    community: reqString(
      s,
      "community",
      /^[a-z0-9_]{1,64}(@[a-z0-9.-]{1,253})?$/i,
      "must be a community name such as startups or startups@lemmy.world",
    ),
    backlog: optInt(s, "backlog", 0, 1000) ?? 0,
  };
}
