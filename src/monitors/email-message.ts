/**
 * The e-mail of an event, and sending it: a plain-text message with the post (title, link,
 * where and by whom, an excerpt) and why it matched, through any sender with the portal
 * mailer's shape (nodemailer over SMTP_URL in the service).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { PostOutcome } from "./http-post.js";
import type { StoredMonitor } from "./monitor-spec.js";

/** One plain-text message. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends a message; rejects when the SMTP server refuses it or cannot be reached. */
export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}

/** The SMTP reply code a successful send gets ("250 OK"). */
const SMTP_OK = 250;

/** Why the post matched, in words. */
export function matchWhy(m: StoredMonitor, event: JsonObject): string {
  const reason = event.reason as JsonObject;
  const parts: string[] = [];
  if (m.kind === "keywords") parts.push(`contains ${(reason.matched_terms as string[]).join(", ")}`);
  else parts.push(`relevance ${Number(reason.relevance).toFixed(2)} (at least ${m.minRelevance})`);
  if (String(reason.lead_type) !== "")
    parts.push(`lead: ${String(reason.lead_type)}, score ${String(reason.lead_score)}`);
  return parts.join("; ");
}

/** The message for one event to `to`. */
export function emailMessage(m: StoredMonitor, event: JsonObject, to: string): EmailMessage {
  const post = event.post as JsonObject;
  const reason = event.reason as JsonObject;
  const title = String(post.title).replace(/\s+/g, " ").slice(0, 150);
  const text = [
    `Monitor "${m.name}" matched a post.`,
    "",
    title,
    String(post.url),
    `${String(reason.source)} / ${String(post.subforum)}, by ${String(reason.author)}, ${String(post.created)}`,
    "",
    String(post.content).slice(0, 1000),
    "",
    `Why it matched: ${matchWhy(m, event)}.`,
    "",
    `Event ${String(event.id)} of monitor ${m.id}.`,
  ].join("\n");
  return { to, subject: `[${m.name}] ${title}`, text };
}

/** Sends one message (an event's, or a digest's). Never throws: a refusal is a failed attempt with the SMTP code. */
export async function sendEmail(sender: EmailSender | undefined, message: EmailMessage): Promise<PostOutcome> {
  if (sender === undefined)
    return { ok: false, status: 0, latencyMs: 0, error: "no SMTP server is configured (SMTP_URL)" };
  const started = performance.now();
  try {
    await sender.send(message);
    return { ok: true, status: SMTP_OK, latencyMs: Math.round(performance.now() - started), error: "" };
  } catch (err) {
    const code = (err as { responseCode?: unknown }).responseCode;
    return {
      ok: false,
      status: typeof code === "number" ? code : 0,
      latencyMs: Math.round(performance.now() - started),
      error: `SMTP: ${(err as Error).message}`.slice(0, 500),
    };
  }
}
