/**
 * The portal's two cookies: the session and the pre-session CSRF token. With `secure` (the
 * default) they carry the `__Host-` prefix, which browsers only accept with Secure, Path=/ and no
 * Domain, so a sibling subdomain cannot plant or overwrite them. Chromium and Firefox treat
 * http://127.0.0.1 and http://localhost as secure contexts, so this works in local tests too;
 * PORTAL_COOKIE_SECURE=false drops both Secure and the prefix for plain-HTTP deployments on other
 * hosts (behind a TLS-terminating proxy keep it true).
 */

/** Names and flags of the portal cookies. */
export interface CookiePolicy {
  session: string;
  csrf: string;
  secure: boolean;
}

/** The cookie names for a secure flag. */
export function cookiePolicy(secure: boolean): CookiePolicy {
  return secure
    ? { session: "__Host-ts_session", csrf: "__Host-ts_csrf", secure }
    : { session: "ts_session", csrf: "ts_csrf", secure };
}

/** Parses a Cookie header; the first occurrence of a name wins (the most specific path). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax, Path=/, Secure per policy. maxAge 0 deletes. */
export function setCookie(policy: CookiePolicy, name: string, value: string, maxAgeSeconds: number): string {
  // Values are our own base64url tokens; refuse anything that would need quoting.
  if (!/^[A-Za-z0-9_.~-]*$/.test(value)) throw new Error(`cookie ${name}: value has characters that need escaping`);
  const parts = [
    `${name}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
  ];
  if (policy.secure) parts.push("Secure");
  return parts.join("; ");
}
