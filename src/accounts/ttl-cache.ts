/**
 * A small time-bounded cache of promises, for key lookups on the authentication hot path.
 * Caching the promise (not the value) means a burst of calls with one key costs one database
 * read. Entries die after the TTL or when deleted; the oldest entry goes when the cache is full.
 */

/** Bounded map from string to a lazily loaded value with a time-to-live. */
export class TtlCache<V> {
  private readonly entries = new Map<string, { expiresAt: number; value: Promise<V> }>();

  /**
   * @param ttlMs how long a loaded value is reused; 0 turns caching off.
   * @param maxEntries the most entries held; the oldest is dropped first.
   * @param now clock in ms; injectable so tests control expiry.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  /** The cached value for `key`, or the result of `load` (which is then cached). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.expiresAt > at) return hit.value;
    if (hit !== undefined) this.entries.delete(key);
    const value = load();
    const entry = { expiresAt: at + this.ttlMs, value };
    this.entries.set(key, entry);
    // A failed load (database down) must not be remembered; the next call tries again.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }

  /** Forgets `key`, so the next get loads it afresh. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }

  /** Number of entries held (expired ones included until touched). */
  get size(): number {
    return this.entries.size;
  }
}
