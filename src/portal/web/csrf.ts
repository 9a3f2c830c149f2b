/**
 * CSRF defence for every portal POST, in two independent layers:
 * 1. fetch metadata / Origin: a browser marks a cross-site request (Sec-Fetch-Site) and names its
 *    origin; either one pointing elsewhere is refused before any token is looked at;
 * 2. a synchronizer token: signed-in forms echo the session's csrfToken; the sign-in and sign-up
 *    forms, which have no session yet, echo a random token also set as a cookie (double submit).
 * Tokens are compared in constant time so response timing leaks nothing about them.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";

/** The hidden form field every POST form carries. */
export const CSRF_FIELD = "csrf_token";

/** A fresh random token for the pre-session cookie (base64url, 256 bits). */
export function newCsrfToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Constant-time equality; false when either side is missing or empty. */
export function tokensMatch(expected: string | undefined, presented: string | undefined): boolean {
  if (expected === undefined || presented === undefined || expected === "" || presented === "") return false;
  // Hash first so inputs of different lengths compare in the same time too.
  const a = createHash("sha256").update(expected).digest();
  const b = createHash("sha256").update(presented).digest();
  return timingSafeEqual(a, b);
}

function headerValue(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Why a POST is not same-origin, or undefined when it is. A request with neither header
 * (a non-browser client) passes this layer; the token layer still applies.
 */
export function crossOriginReason(req: FastifyRequest, scheme: "http" | "https"): string | undefined {
  const site = headerValue(req, "sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return `Sec-Fetch-Site is ${site}`;
  const origin = headerValue(req, "origin");
  if (origin === undefined) return undefined;
  // Our Referrer-Policy is no-referrer, under which browsers send `Origin: null` even for our
  // own forms; fetch metadata then vouches for the request. Without it, null is refused.
  if (origin === "null")
    return site === "same-origin" ? undefined : "Origin is null and Sec-Fetch-Site does not say same-origin";
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return "Origin is not a URL";
  }
  if (parsed.protocol !== `${scheme}:` || parsed.host !== req.host) return `Origin ${origin} is not this site`;
  return undefined;
}
