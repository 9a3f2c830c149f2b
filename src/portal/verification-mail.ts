/**
 * The two mails a sign-up sends: the one-time verification link for a new account, or, when the
 * address already has an account, a note saying so (the page answers the same in both cases).
 */
import type { MailMessage } from "./mailer.js";

/** The verification mail with its one-time link. */
export function verificationMail(to: string, publicUrl: string, token: string, ttlSeconds: number): MailMessage {
  const hours = Math.max(1, Math.round(ttlSeconds / 3600));
  return {
    to,
    subject: "Confirm your Threadsight account",
    text: [
      "Someone (we hope you) signed up for Threadsight with this address.",
      "",
      `Confirm it within ${hours} hour${hours === 1 ? "" : "s"} by opening this link once:`,
      `${publicUrl}/portal/verify-email?token=${encodeURIComponent(token)}`,
      "",
      "If this was not you, ignore this mail; the account stays unconfirmed.",
    ].join("\n"),
  };
}

/** The mail sent instead when the address already has an account. */
export function alreadyRegisteredMail(to: string, publicUrl: string): MailMessage {
  return {
    to,
    subject: "You already have a Threadsight account",
    text: [
      "Someone (we hope you) tried to sign up for Threadsight with this address,",
      "but you already have an account. Sign in instead:",
      `${publicUrl}/portal/sign-in`,
      "",
      "If this was not you, ignore this mail; nothing was changed.",
    ].join("\n"),
  };
}
