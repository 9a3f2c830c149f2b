/**
 * Response headers for every portal response. The CSP allows only our own files: no inline
 * script or style, no framing, forms post only to us, no <base>. Pages are never cached (they
 * show usage, key lists and, once, a key's secret); assets may be.
 */
import type { FastifyReply } from "fastify";

/** The Content-Security-Policy of every portal response. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join("; ");

/** Sets the security headers; `tls` adds HSTS (only meaningful over HTTPS). */
export function setSecurityHeaders(reply: FastifyReply, tls: boolean): void {
  reply.header("content-security-policy", CONTENT_SECURITY_POLICY);
  reply.header("x-frame-options", "DENY");
  reply.header("referrer-policy", "no-referrer");
  reply.header("x-content-type-options", "nosniff");
  reply.header("cross-origin-opener-policy", "same-origin");
  reply.header("permissions-policy", "camera=(), microphone=(), geolocation=()");
  if (tls) reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
}

/** Marks a response as not storable anywhere (pages, redirects after auth). */
export function noStore(reply: FastifyReply): void {
  reply.header("cache-control", "no-store");
  reply.header("pragma", "no-cache");
}
