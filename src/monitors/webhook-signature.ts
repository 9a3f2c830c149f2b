/**
 * The webhook signature: `Threadsight-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>">`, Stripe's scheme, so receivers can reject forged and replayed bodies. During a
 * secret rotation a second v1= value signed with the previous secret is added.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The header name. */
export const SIGNATURE_HEADER = "Threadsight-Signature";

/** The hex HMAC of one timestamp and body. */
export function sign(secret: string, t: number, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

/** The header value for `body` at unix time `t`, signed by every given secret. */
export function signatureHeader(secrets: readonly string[], t: number, body: string): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${sign(s, t, body)}`)].join(",");
}

/** True when `header` carries a v1 signature of `body` by `secret`, at most `toleranceS` old. */
export function verifySignature(header: string, body: string, secret: string, nowS: number, toleranceS = 300): boolean {
  const parts = header.split(",").map((p) => p.split("=", 2) as [string, string]);
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS) return false;
  const want = Buffer.from(sign(secret, t, body), "hex");
  return parts.some(
    ([k, v]) => k === "v1" && v.length === want.length * 2 && timingSafeEqual(Buffer.from(v, "hex"), want),
  );
}
