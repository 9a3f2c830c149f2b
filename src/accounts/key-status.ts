/**
 * A key's lifecycle state at a given instant, derived from its timestamps rather than stored,
 * so a rotated key turns from `rotating` to `expired` without anything having to run.
 */
import type { ApiKeyInfo } from "./store.js";

/** `rotating`: replaced, still accepted until its expiresAt (the grace period). */
export type KeyStatus = "active" | "rotating" | "expired" | "revoked";

/** The status of `key` at `now`; revocation wins over expiry. */
export function keyStatus(key: Pick<ApiKeyInfo, "revokedAt" | "expiresAt">, now: Date): KeyStatus {
  if (key.revokedAt !== null && key.revokedAt.getTime() <= now.getTime()) return "revoked";
  if (key.expiresAt !== null) return key.expiresAt.getTime() <= now.getTime() ? "expired" : "rotating";
  return "active";
}
