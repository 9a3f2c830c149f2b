/**
 * One-time values carried across a post/redirect/get, held server-side and bound to the session
 * that made them: a new key's secret never travels in a URL, and only the browser holding that
 * session cookie can read it, once. Kept in memory: a flash outlives one redirect, not a restart.
 */
import { createHash } from "node:crypto";

/** How long a flash waits for its GET, milliseconds. */
export const FLASH_TTL_MS = 5 * 60_000;

/** Pending flashes kept at most; the oldest goes first, so a flood cannot grow memory. */
export const FLASH_MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** A short-lived, single-use value per session token. */
export class FlashStore<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly ttlMs = FLASH_TTL_MS,
    private readonly maxEntries = FLASH_MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores `value` for the session, replacing an unread one. */
  put(sessionToken: string, value: T): void {
    const id = digest(sessionToken);
    this.entries.delete(id);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(id, { value, expiresAt: this.now() + this.ttlMs });
  }

  /** The session's value, removed as it is read; undefined when absent or expired. */
  take(sessionToken: string): T | undefined {
    const id = digest(sessionToken);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    return entry.expiresAt > this.now() ? entry.value : undefined;
  }

  /** Pending entries (expired ones included until read or evicted). */
  get size(): number {
    return this.entries.size;
  }
}

// Keyed by a digest so the map never holds a usable session token.
function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
