/**
 * Delivery workers: read the outbox and push each event to its monitor's channels, in order per
 * monitor channel (only the head of each queue is sent), at least once (a delivery row is marked
 * delivered only after the receiver answered 2xx, so a crash mid-send sends it again).
 *
 * Retries back off exponentially with jitter (retry-schedule.ts) for the policy's window after
 * the event was written; then the event is dead-lettered (visible in ListDeliveries) and the
 * monitor is paused with a reason its owner can read, since its endpoint kept failing meanwhile.
 *
 * Two things hold a delivery back without counting an attempt: the plan's daily delivery budget
 * (the delivery waits for the next UTC day, with a "deferred" row saying so) and an e-mail
 * digest's period (its events wait for the period's end, then go out as one message, all marked
 * delivered only once the SMTP server accepted it).
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

/** What the workers need. */
export interface DeliveryDeps {
  store: MonitorStore;
  allowPrivate: boolean;
  retry?: RetryPolicy;
  /** How often the outbox is polled when idle, ms. */
  pollMs?: number;
  /** Deliveries sent at once (each from a different monitor channel). */
  concurrency?: number;
  clock?: () => number;
  random?: () => number;
  onError?: (err: unknown) => void;
  /** Longest wait for a receiver, ms (http-post.ts's default when absent). */
  timeoutMs?: number;
  /** Sends e-mail channels' messages; without it they fail (and are retried) with a reason. */
  mailer?: EmailSender;
  /** The plan's daily delivery budget; absent = unlimited. */
  allowance?: DeliveryAllowance;
}

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

/** Runs the workers until stopped. */
export class DeliveryWorker {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: DeliveryDeps) {}

  /** Starts polling. */
  start(): void {
    this.loop ??= this.run();
  }

  /** One pass over what is due now; returns the deliveries attempted. */
  async tick(): Promise<number> {
    const { store } = this.deps;
    const clock = this.deps.clock ?? Date.now;
    const due = await store.due(clock(), this.deps.concurrency ?? 16);
    await Promise.all(due.map((d) => this.deliver(d)));
    return due.length;
  }

  /**
   * The events one send covers. A digest channel's head waits for the end of its period (null:
   * deferred); then the message lists every pending event of the periods that have ended.
   */
  private async batchOf(m: StoredMonitor, d: DueDelivery, now: number): Promise<Batch | null> {
    const channel = m.channels[d.channelIndex];
    if (channel?.type !== "email" || channel.emailMode !== "digest") return { events: [d.event] };
    const interval = channel.digestInterval ?? DEFAULT_DIGEST_INTERVAL;
    const due = periodEnd(d.event.created, interval);
    if (now < due) {
      await this.deps.store.defer(d.event.id, d.channelIndex, due);
      return null;
    }
    const until = periodStart(now, interval);
    const events = await this.deps.store.pendingEvents(m.id, d.channelIndex, until, DIGEST_MAX_POSTS);
    // The head is pending and older than `until`, so it is always the first of them.
    if (events[0]?.seq !== d.event.seq) events.unshift(d.event);
    return { events, message: digestMessage(m, events.map(eventJson), channel.email, until) };
  }

  private async deliver(d: DueDelivery): Promise<void> {
    const { store } = this.deps;
    const clock = this.deps.clock ?? Date.now;
    const policy = this.deps.retry ?? DEFAULT_RETRY;
    const m = await store.byId(d.event.monitorId);
    if (m === undefined) return;
    const channel = m.channels[d.channelIndex]?.type ?? "webhook";
    const at = clock();
    const batch = await this.batchOf(m, d, at);
    if (batch === null) return;
    const attempt = d.attempts + 1;
    const allowed = this.deps.allowance === undefined ? undefined : await this.deps.allowance.take(m.accountId, at);
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
      await store.defer(d.event.id, d.channelIndex, allowed.retryAt, note);
      return;
    }
    const out = await send(
      m,
      d,
      batch,
      {
        allowPrivate: this.deps.allowPrivate,
        ...(this.deps.timeoutMs !== undefined ? { timeoutMs: this.deps.timeoutMs } : {}),
      },
      at,
      this.deps.mailer,
    );
    if (!out.ok && allowed?.ok) await this.deps.allowance?.giveBack(allowed.token).catch(this.deps.onError);
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
      await store.recordAttempts(records("delivered"), d.channelIndex, { kind: "delivered" });
      return;
    }
    const next = clock() + retryDelay(attempt, policy, this.deps.random);
    if (next - d.windowStart <= policy.retryWindowMs) {
      await store.recordAttempts(records("failed"), d.channelIndex, { kind: "retry", at: next });
      return;
    }
    await store.recordAttempts(records("dead_lettered"), d.channelIndex, { kind: "dead" });
    const hours = Math.round(policy.retryWindowMs / 3600_000);
    await store.pause(
      m.id,
      `the ${channel} channel kept failing for ${hours >= 1 ? `${hours} h` : `${Math.round(policy.retryWindowMs / 1000)} s`} (last: ${out.error}); event ${d.event.id} was dead-lettered. Fix the endpoint, then set paused to false and redeliver`,
      clock(),
    );
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let n = 0;
      try {
        n = await this.tick();
      } catch (err) {
        this.deps.onError?.(err);
      }
      if (n === 0 && !this.stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.deps.pollMs ?? 250);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  }

  /** Stops polling and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
