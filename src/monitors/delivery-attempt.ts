/**
 * One delivery attempt and what follows from it, shared by every delivery runner (the SQLite
 * poller and the PostgreSQL queue): send the event to its channel, then decide whether the
 * delivery is done, retried later with backoff, or dead-lettered with the monitor paused.
 */
import type { EmailSender } from "./email-message.js";
import { sendEmail } from "./email-message.js";
import type { PostOutcome } from "./http-post.js";
import { postJson } from "./http-post.js";
import { eventJson } from "./monitor-event.js";
import type { StoredMonitor } from "./monitor-spec.js";
import type { AttemptOutcome, AttemptRecord, DueDelivery } from "./monitor-store.js";
import { slackMessage } from "./slack-message.js";
import { SIGNATURE_HEADER, signatureHeader } from "./webhook-signature.js";

/** The retry schedule. */
export interface RetryPolicy {
  /** Delay before the second attempt, ms; doubles per attempt. */
  baseDelayMs: number;
  /** Longest delay between attempts, ms. */
  maxDelayMs: number;
  /** How long after the event was written it is retried before being dead-lettered, ms. */
  retryWindowMs: number;
}

/** Production schedule: 10 s, 20 s, 40 s ... capped at 1 h, for 24 h. */
export const DEFAULT_RETRY: RetryPolicy = { baseDelayMs: 10_000, maxDelayMs: 3600_000, retryWindowMs: 24 * 3600_000 };

/** What an attempt needs besides the delivery. */
export interface AttemptDeps {
  allowPrivate: boolean;
  retry?: RetryPolicy;
  clock?: () => number;
  random?: () => number;
  /** Longest wait for a receiver, ms (http-post.ts's default when absent). */
  timeoutMs?: number;
  /** Sends e-mail channels' messages; without it they fail (and are retried) with a reason. */
  mailer?: EmailSender;
}

/** The result of an attempt: the row for ListDeliveries, the delivery's next state, and a pause reason when it was dead-lettered. */
export interface AttemptResult {
  record: AttemptRecord;
  outcome: AttemptOutcome;
  pauseReason?: string;
}

/** Delay before attempt `attempt + 1`: full jitter over an exponential step, capped. */
export function retryDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

async function send(
  m: StoredMonitor,
  d: DueDelivery,
  opts: { allowPrivate: boolean; timeoutMs?: number },
  now: number,
  mailer: EmailSender | undefined,
): Promise<PostOutcome> {
  const channel = m.channels[d.channelIndex];
  if (channel === undefined) return { ok: true, status: 0, latencyMs: 0, error: "" };
  const event = eventJson(d.event);
  if (channel.type === "slack") return postJson(channel.url, JSON.stringify(slackMessage(m, event)), {}, opts);
  if (channel.type === "webhook") {
    const body = JSON.stringify(event);
    const secrets = m.previousSecret !== "" && m.previousSecretUntil > now ? [m.secret, m.previousSecret] : [m.secret];
    const headers = {
      [SIGNATURE_HEADER]: signatureHeader(secrets, Math.floor(now / 1000), body),
      "Threadsight-Event-Id": d.event.id,
    };
    return postJson(channel.url, body, headers, opts);
  }
  return sendEmail(mailer, m, event, channel.email);
}

/** Sends `d` to monitor `m`'s channel and decides what happens to the delivery next. */
export async function attemptDelivery(deps: AttemptDeps, m: StoredMonitor, d: DueDelivery): Promise<AttemptResult> {
  const clock = deps.clock ?? Date.now;
  const policy = deps.retry ?? DEFAULT_RETRY;
  const channel = m.channels[d.channelIndex]?.type ?? "webhook";
  const at = clock();
  const out = await send(
    m,
    d,
    { allowPrivate: deps.allowPrivate, ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}) },
    at,
    deps.mailer,
  );
  const attempt = d.attempts + 1;
  const base = {
    eventId: d.event.id,
    monitorId: m.id,
    channel,
    attempt,
    responseCode: out.status,
    latencyMs: out.latencyMs,
    at,
    error: out.error,
  };
  if (out.ok) return { record: { ...base, status: "delivered" }, outcome: { kind: "delivered" } };
  const next = clock() + retryDelay(attempt, policy, deps.random);
  if (next - d.event.created <= policy.retryWindowMs)
    return { record: { ...base, status: "failed" }, outcome: { kind: "retry", at: next } };
  const hours = Math.round(policy.retryWindowMs / 3600_000);
  const window = hours >= 1 ? `${hours} h` : `${Math.round(policy.retryWindowMs / 1000)} s`;
  return {
    record: { ...base, status: "dead_lettered" },
    outcome: { kind: "dead" },
    pauseReason: `the ${channel} channel kept failing for ${window} (last: ${out.error}); event ${d.event.id} was dead-lettered. Fix the endpoint, then set paused to false and redeliver`,
  };
}
