/**
 * One delivery attempt and what follows from it, shared by every delivery runner (the SQLite
 * poller and the PostgreSQL queue): work out what the send covers (a digest waits for its period,
 * then lists every pending event of it), ask the daily delivery allowance, send, then decide
 * whether the delivery is done, retried later with backoff, or dead-lettered with the monitor
 * paused. The runner supplies where the outcome is written (its store, or a held transaction).
 */
import type { DeliveryAllowance } from "./delivery-allowance.js";
import { DEFAULT_DIGEST_INTERVAL, DIGEST_MAX_POSTS, digestMessage, periodEnd, periodStart } from "./email-digest.js";
import type { EmailMessage, EmailSender } from "./email-message.js";
import { emailMessage, sendEmail } from "./email-message.js";
import type { PostOutcome } from "./http-post.js";
import { postJson } from "./http-post.js";
import { eventJson } from "./monitor-event.js";
import type { StoredMonitor } from "./monitor-spec.js";
import type { AttemptRecord, DueDelivery, MonitorStore, StoredEvent } from "./monitor-store.js";
import type { RetryPolicy } from "./retry-schedule.js";
import { DEFAULT_RETRY, retryDelay } from "./retry-schedule.js";
import { slackMessage } from "./slack-message.js";
import { SIGNATURE_HEADER, signatureHeader } from "./webhook-signature.js";

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
  /** The plan's daily delivery budget; absent = unlimited. */
  allowance?: DeliveryAllowance;
  onError?: (err: unknown) => void;
}

/** Where an attempt reads a digest's events and writes its outcome: a store, or a runner's held transaction. */
export type AttemptSink = Pick<MonitorStore, "pendingEvents" | "defer" | "recordAttempts" | "pause">;

/** What one send covers: the head delivery, and for a digest every event the message lists. */
interface Batch {
  events: StoredEvent[];
  message?: EmailMessage;
}

async function send(
  m: StoredMonitor,
  d: DueDelivery,
  batch: Batch,
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
  return sendEmail(mailer, batch.message ?? emailMessage(m, event, channel.email));
}

/**
 * The events one send covers. A digest channel's head waits for the end of its period (null:
 * deferred); then the message lists every pending event of the periods that have ended.
 */
async function batchOf(sink: AttemptSink, m: StoredMonitor, d: DueDelivery, now: number): Promise<Batch | null> {
  const channel = m.channels[d.channelIndex];
  if (channel?.type !== "email" || channel.emailMode !== "digest") return { events: [d.event] };
  const interval = channel.digestInterval ?? DEFAULT_DIGEST_INTERVAL;
  const due = periodEnd(d.event.created, interval);
  if (now < due) {
    await sink.defer(d.event.id, d.channelIndex, due);
    return null;
  }
  const until = periodStart(now, interval);
  const events = await sink.pendingEvents(m.id, d.channelIndex, until, DIGEST_MAX_POSTS);
  // The head is pending and older than `until`, so it is always the first of them.
  if (events[0]?.seq !== d.event.seq) events.unshift(d.event);
  return { events, message: digestMessage(m, events.map(eventJson), channel.email, until) };
}

/**
 * Delivers `d` of monitor `m` once and writes the outcome through `sink`: deferred (digest period
 * or daily limit, no attempt counted), delivered, retried with backoff, or dead-lettered with the
 * monitor paused once the retry window (counted from `d.windowStart`) is spent.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  sink: AttemptSink,
  m: StoredMonitor,
  d: DueDelivery,
): Promise<void> {
  const clock = deps.clock ?? Date.now;
  const policy = deps.retry ?? DEFAULT_RETRY;
  const channel = m.channels[d.channelIndex]?.type ?? "webhook";
  const at = clock();
  const batch = await batchOf(sink, m, d, at);
  if (batch === null) return;
  const attempt = d.attempts + 1;
  const allowed = deps.allowance === undefined ? undefined : await deps.allowance.take(m.accountId, at);
  if (allowed !== undefined && !allowed.ok) {
    // Held back, not failed: no attempt is spent, and the retry window restarts when it is sent.
    const note: AttemptRecord | undefined =
      allowed.reason === ""
        ? undefined
        : {
            eventId: d.event.id,
            monitorId: m.id,
            channel,
            attempt,
            status: "deferred",
            responseCode: 0,
            latencyMs: 0,
            at,
            error: allowed.reason,
          };
    await sink.defer(d.event.id, d.channelIndex, allowed.retryAt, note);
    return;
  }
  const out = await send(
    m,
    d,
    batch,
    { allowPrivate: deps.allowPrivate, ...(deps.timeoutMs !== undefined ? { timeoutMs: deps.timeoutMs } : {}) },
    at,
    deps.mailer,
  );
  if (!out.ok && allowed?.ok) await deps.allowance?.giveBack(allowed.token).catch(deps.onError);
  const records = (status: AttemptRecord["status"]): AttemptRecord[] =>
    batch.events.map((e) => ({
      eventId: e.id,
      monitorId: m.id,
      channel,
      attempt,
      status,
      responseCode: out.status,
      latencyMs: out.latencyMs,
      at,
      error: out.error,
    }));
  if (out.ok) {
    await sink.recordAttempts(records("delivered"), d.channelIndex, { kind: "delivered" });
    return;
  }
  const next = clock() + retryDelay(attempt, policy, deps.random);
  if (next - d.windowStart <= policy.retryWindowMs) {
    await sink.recordAttempts(records("failed"), d.channelIndex, { kind: "retry", at: next });
    return;
  }
  await sink.recordAttempts(records("dead_lettered"), d.channelIndex, { kind: "dead" });
  const hours = Math.round(policy.retryWindowMs / 3600_000);
  const window = hours >= 1 ? `${hours} h` : `${Math.round(policy.retryWindowMs / 1000)} s`;
  await sink.pause(
    m.id,
    `the ${channel} channel kept failing for ${window} (last: ${out.error}); event ${d.event.id} was dead-lettered. Fix the endpoint, then set paused to false and redeliver`,
    clock(),
  );
}
