/**
 * A monitor as the domain sees it: what its owner sets (MonitorSpec), what the store keeps
 * besides (StoredMonitor), and the validation of a spec, whose errors name the field and rule.
 */
import type { FilterParams } from "../core/request-rules.js";
import { AppError } from "../errors/app-error.js";
import type { DigestInterval } from "./email-digest.js";
import { DIGEST_INTERVALS } from "./email-digest.js";
import { KeywordSyntaxError, parseKeywords } from "./keyword-parser.js";
import { resolveMonitorFilter } from "./monitor-filters.js";

/** The kinds of monitor. */
export const MONITOR_KINDS = ["search", "leads", "keywords"] as const;
/** One of {@link MONITOR_KINDS}. */
export type MonitorKind = (typeof MONITOR_KINDS)[number];

/** Channel types a monitor can push to. */
export const CHANNEL_TYPES = ["webhook", "slack", "email"] as const;
/** One of {@link CHANNEL_TYPES}. */
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Default lowest relevance of a search or leads match, 0..1. */
export const DEFAULT_MIN_RELEVANCE = 0.5;
/** Default lowest lead_score of a leads match, as FindLeads. */
export const DEFAULT_MIN_SCORE = 50;
/** Most channels per monitor. */
export const MAX_CHANNELS = 5;

/** One destination. */
export interface ChannelSpec {
  type: ChannelType;
  url: string;
  email: string;
  emailMode: "instant" | "digest";
  /** Digest channels: how often the digest goes out; absent = DEFAULT_DIGEST_INTERVAL. */
  digestInterval?: DigestInterval;
}

/** What a monitor's owner sets. */
export interface MonitorSpec {
  name: string;
  kind: MonitorKind;
  query: string;
  minRelevance: number;
  minScore: number;
  /** Which posts the monitor considers: a PostFilter, as its owner sent it. */
  filter: FilterParams;
  channels: ChannelSpec[];
  paused: boolean;
}

/** A saved monitor. */
export interface StoredMonitor extends MonitorSpec {
  id: string;
  accountId: string;
  pausedReason: string;
  secret: string;
  previousSecret: string;
  /** Epoch ms until which previousSecret also signs; 0 when there is none. */
  previousSecretUntil: number;
  created: number;
  updated: number;
}

/** One address: a local part, "@", a domain with a dot; no spaces or angle brackets (header injection). */
const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

function bad(field: string, message: string): AppError {
  return new AppError("INVALID_ARGUMENT", `${field} ${message}`, { field });
}

function checkUrl(field: string, raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(field, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw bad(field, `must use https (or http), got ${url.protocol}`);
  if (url.username !== "" || url.password !== "") throw bad(field, "must not carry a user name or password");
}

/**
 * Checks a spec; `prefix` is the request field holding it ("monitor").
 * @throws AppError INVALID_ARGUMENT naming the first bad field.
 */
export function validateSpec(spec: MonitorSpec, prefix = "monitor"): void {
  const f = (name: string): string => `${prefix}.${name}`;
  const name = spec.name.trim();
  if (name === "" || name.length > 100) throw bad(f("name"), `must be 1..100 characters, got ${name.length}`);
  if (!(MONITOR_KINDS as readonly string[]).includes(spec.kind))
    throw bad(f("kind"), `must be one of ${MONITOR_KINDS.join(", ")}, got "${spec.kind}"`);
  const query = spec.query.trim();
  const maxQuery = spec.kind === "keywords" ? 1000 : 500;
  if (query === "" || query.length > maxQuery)
    throw bad(f("query"), `must be 1..${maxQuery} characters after trimming, got ${query.length}`);
  if (spec.kind === "keywords") {
    try {
      parseKeywords(spec.query);
    } catch (err) {
      if (err instanceof KeywordSyntaxError) throw bad(f("query"), `is not a valid keyword expression: ${err.message}`);
      throw err;
    }
  }
  if (!(spec.minRelevance >= 0 && spec.minRelevance <= 1))
    throw bad(f("min_relevance"), `must be between 0 and 1, got ${spec.minRelevance}`);
  if (!(Number.isInteger(spec.minScore) && spec.minScore >= 0 && spec.minScore <= 100))
    throw bad(f("min_score"), `must be between 0 and 100, got ${spec.minScore}`);
  resolveMonitorFilter(spec.filter, prefix);
  if (spec.channels.length > MAX_CHANNELS)
    throw bad(f("channels"), `must have at most ${MAX_CHANNELS} entries, got ${spec.channels.length}`);
  spec.channels.forEach((c, i) => {
    const cf = f(`channels[${i}]`);
    if (!(CHANNEL_TYPES as readonly string[]).includes(c.type))
      throw bad(`${cf}.type`, `must be one of ${CHANNEL_TYPES.join(", ")}, got "${c.type}"`);
    if (c.type === "email") {
      if (!EMAIL.test(c.email) || c.email.length > 254)
        throw bad(`${cf}.email`, `must be an e-mail address such as "alerts@example.com", got "${c.email}"`);
      if (c.emailMode !== "instant" && c.emailMode !== "digest")
        throw bad(`${cf}.email_mode`, `must be "instant" or "digest", got "${c.emailMode}"`);
      if (c.emailMode === "digest") {
        if (c.digestInterval !== undefined && !(DIGEST_INTERVALS as readonly string[]).includes(c.digestInterval))
          throw bad(
            `${cf}.digest_interval`,
            `must be one of ${DIGEST_INTERVALS.join(", ")}, got "${c.digestInterval}"`,
          );
        return;
      }
    }
    if (c.digestInterval !== undefined)
      throw bad(`${cf}.digest_interval`, `only applies to an email channel with email_mode "digest"`);
    if (c.type === "email") return;
    checkUrl(`${cf}.url`, c.url);
  });
}
