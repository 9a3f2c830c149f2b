/**
 * What the portal accepts as an email, a password and a name. Each check throws a PortalError
 * naming the form field and the rule, so the page can put the message next to the field.
 */
import { normalizeEmail } from "../accounts/store.js";
import { PortalError } from "./portal-service.js";

/** RFC 5321's limit on a whole address. */
export const MAX_EMAIL_LENGTH = 254;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;
export const MAX_NAME_LENGTH = 100;

// Deliberately loose: one @, a dot in the domain, no spaces or control characters. Whether the
// address exists is for a confirmation mail to find out, not a regular expression.
const EMAIL_SHAPE = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}.]+$/u;

// The most common leaked passwords that are at least MIN_PASSWORD_LENGTH long (shorter ones
// already fail the length rule). Small on purpose: a guard against the obvious, not a breach list.
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "1234567890",
  "12345678910",
  "123456789a",
  "0123456789",
  "1111111111",
  "0987654321",
  "qwertyuiop",
  "1q2w3e4r5t",
  "password123",
  "password12",
  "password1!",
  "qwerty1234",
  "qwerty12345",
  "iloveyou12",
  "1qaz2wsx3edc",
  "asdfghjkl1",
  "abcdefghij",
  "zaq12wsxcde",
  "letmein123",
  "welcome123",
]);

function invalid(field: string, message: string): PortalError {
  return new PortalError({ kind: "invalid", field, message });
}

/** The normalised (trimmed, lowercase) email, or throws. */
export function checkEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (email.length === 0) throw invalid("email", "email is required");
  if (email.length > MAX_EMAIL_LENGTH) {
    throw invalid("email", `email must be at most ${MAX_EMAIL_LENGTH} characters, got ${email.length}`);
  }
  if (!EMAIL_SHAPE.test(email)) throw invalid("email", "email must look like name@example.com");
  return email;
}

/** Throws unless `password` may be set for an account with `email` (already normalised). */
export function checkNewPassword(password: string, email: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw invalid(
      "password",
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, got ${length}`,
    );
  }
  if (password.trim().length === 0) throw invalid("password", "password must not be only spaces");
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower))
    throw invalid("password", "password is one of the most common passwords; choose another");
  if (lower === email || lower === email.split("@")[0])
    throw invalid("password", "password must not be your email address");
}

/** The trimmed display name, or throws. */
export function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw invalid("name", "name is required");
  if (name.length > MAX_NAME_LENGTH)
    throw invalid("name", `name must be at most ${MAX_NAME_LENGTH} characters, got ${name.length}`);
  if (/\p{Cc}/u.test(name)) throw invalid("name", "name must not contain control characters");
  return name;
}
