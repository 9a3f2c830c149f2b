/**
 * Outgoing portal mail (email verification) through one small interface, so the accounts domain
 * holds no SMTP details. The SMTP implementation is nodemailer over SMTP_URL; without SMTP_URL
 * no mail is sent and accounts simply stay unverified.
 */
import nodemailer from "nodemailer";

/** One plain-text message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends portal mail; rejects when the server refuses or cannot be reached. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A mailer over the SMTP server at `url` (smtp:// or smtps://, credentials in the URL). */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
