/**
 * E-mail digests: a channel with email_mode "digest" gets one message per period (an hour or a
 * UTC day) listing every post the monitor matched in it, instead of one message per post. The
 * period an event belongs to is fixed by its creation time, so a restart or an SMTP outage
 * never moves an event into another digest's count: it only makes a later message carry more.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { EmailMessage } from "./email-message.js";
import { matchWhy } from "./email-message.js";
import type { StoredMonitor } from "./monitor-spec.js";

/** How often a digest channel sends. */
export const DIGEST_INTERVALS = ["hourly", "daily"] as const;
/** One of {@link DIGEST_INTERVALS}. */
export type DigestInterval = (typeof DIGEST_INTERVALS)[number];
/** The interval of a digest channel that names none. */
export const DEFAULT_DIGEST_INTERVAL: DigestInterval = "hourly";

/** Most posts one digest lists; the rest of a busy period follow in another message at once. */
export const DIGEST_MAX_POSTS = 100;

const PERIOD_MS: Record<DigestInterval, number> = { hourly: 3600_000, daily: 86_400_000 };

/** Start of the period containing `t` (UTC hours and days both align on the epoch). */
export function periodStart(t: number, interval: DigestInterval): number {
  return t - (t % PERIOD_MS[interval]);
}

/** End (exclusive) of the period containing `t`: when that period's digest is sent. */
export function periodEnd(t: number, interval: DigestInterval): number {
  return periodStart(t, interval) + PERIOD_MS[interval];
}

/** The digest of `events` (oldest first) to `to`; `until` is the end of the last period it covers. */
export function digestMessage(
  m: StoredMonitor,
  events: readonly JsonObject[],
  to: string,
  until: number,
): EmailMessage {
  const n = events.length;
  const lines = [
    `Monitor "${m.name}" matched ${n} ${n === 1 ? "post" : "posts"} up to ${new Date(until).toISOString()}.`,
  ];
  events.forEach((event, i) => {
    const post = event.post as JsonObject;
    const reason = event.reason as JsonObject;
    lines.push(
      "",
      `${i + 1}. ${String(post.title).replace(/\s+/g, " ").slice(0, 150)}`,
      `   ${String(post.url)}`,
      `   ${String(reason.source)} / ${String(post.subforum)}, by ${String(reason.author)}, ${String(post.created)}`,
      `   Why it matched: ${matchWhy(m, event)}.`,
      `   Event ${String(event.id)}.`,
    );
  });
  lines.push("", `Digest of monitor ${m.id}.`);
  return { to, subject: `[${m.name}] ${n} new ${n === 1 ? "match" : "matches"} (digest)`, text: lines.join("\n") };
}
