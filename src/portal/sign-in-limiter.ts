/**
 * Limits on sign-in attempts, against password guessing, at three scopes: per email and client
 * address (one person mistyping, or a targeted guess), per email across all addresses (a guess
 * spread over many addresses) and per address alone (one address spraying many emails).
 *
 * An attempt is reserved before its password is checked: the reservation counts it as a failure
 * at once, in the same synchronous step that decides whether it may go ahead, so a burst of
 * parallel attempts cannot all pass the check before any failure is recorded. A success refunds
 * its reservation (and clears the email+address count). A refused attempt counts nothing, so
 * hammering a locked email does not lengthen its delay.
 *
 * Each scope allows `free` attempts, then makes each further attempt wait a progressively longer
 * delay (`baseDelaySeconds`, doubling per attempt, at most `maxDelaySeconds`) after the previous
 * one; a scope is forgotten `resetSeconds` after its last attempt. The per-email cap is short on
 * purpose: anyone can fail against a victim's email, and that must only ever delay the victim.
 *
 * Counters live in process memory: a restart forgets them, and several instances each count on
 * their own, which bounds guessing per instance.
 */

/** One scope's policy. */
export interface DelayPolicy {
  /** Attempts allowed without delay. */
  free: number;
  /** Wait after the first attempt beyond `free`, seconds; doubles with each further attempt. */
  baseDelaySeconds: number;
  /** Longest wait between attempts, seconds. */
  maxDelaySeconds: number;
}

/** The three scopes; each has a default. */
export interface SignInLimits {
  /** Default 5 free, then 30 s doubling up to 15 minutes. */
  perEmailAndAddress?: DelayPolicy;
  /** Default 10 free, then 30 s doubling up to 2 minutes. */
  perEmail?: DelayPolicy;
  /** Default 20 free, then 30 s doubling up to 15 minutes. */
  perAddress?: DelayPolicy;
  /** A scope is forgotten this long after its last attempt, seconds. Default 15 minutes. */
  resetSeconds?: number;
}

/** What the limiter decides before a sign-in is checked. */
export type SignInGate = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Reserves sign-in attempts and refunds the successful ones. */
export interface SignInLimiter {
  /**
   * Decides and, when allowed, counts the attempt as failed, in one synchronous step. Call it
   * before any await in the sign-in, so that parallel attempts are counted one by one.
   */
  reserve(email: string, address: string, now: Date): SignInGate;
  /** Refunds a reservation whose password was right and clears the email+address count. */
  succeeded(email: string, address: string, now: Date): void;
}

/** Default policies (docs/SECURITY.md, "Accounts and portal"). */
export const DEFAULT_SIGN_IN_LIMITS: Required<SignInLimits> = {
  perEmailAndAddress: { free: 5, baseDelaySeconds: 30, maxDelaySeconds: 15 * 60 },
  perEmail: { free: 10, baseDelaySeconds: 30, maxDelaySeconds: 2 * 60 },
  perAddress: { free: 20, baseDelaySeconds: 30, maxDelaySeconds: 15 * 60 },
  resetSeconds: 15 * 60,
};

interface Counter {
  attempts: number;
  lastAt: number;
}

// Sweeping forgotten counters every so many reservations bounds memory without a timer.
const SWEEP_EVERY = 1_000;

/** The wait required after `attempts` counted attempts, ms. */
function delayMs(policy: DelayPolicy, attempts: number): number {
  if (attempts < policy.free) return 0;
  const doublings = Math.min(attempts - policy.free, 30);
  return Math.min(policy.baseDelaySeconds * 2 ** doublings, policy.maxDelaySeconds) * 1000;
}

/** One scope: counters by key under one policy. */
class Scope {
  private readonly counters = new Map<string, Counter>();
  constructor(
    readonly policy: DelayPolicy,
    private readonly resetMs: number,
  ) {}

  private live(key: string, at: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c !== undefined && at - c.lastAt >= this.resetMs) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  /** Ms to wait before `key` may try again; 0 when it may now. */
  waitMs(key: string, at: number): number {
    const c = this.live(key, at);
    return c === undefined ? 0 : Math.max(0, c.lastAt + delayMs(this.policy, c.attempts) - at);
  }

  count(key: string, at: number): void {
    const c = this.live(key, at);
    this.counters.set(key, { attempts: (c?.attempts ?? 0) + 1, lastAt: at });
  }

  refund(key: string, at: number): void {
    const c = this.live(key, at);
    if (c === undefined) return;
    if (c.attempts <= 1) this.counters.delete(key);
    else c.attempts -= 1;
  }

  clear(key: string): void {
    this.counters.delete(key);
  }

  sweep(at: number): void {
    for (const [key, c] of this.counters) if (at - c.lastAt >= this.resetMs) this.counters.delete(key);
  }
}

/** Builds the limiter. */
export function createSignInLimiter(limits: SignInLimits = {}): SignInLimiter {
  const resetMs = (limits.resetSeconds ?? DEFAULT_SIGN_IN_LIMITS.resetSeconds) * 1000;
  const pair = new Scope(limits.perEmailAndAddress ?? DEFAULT_SIGN_IN_LIMITS.perEmailAndAddress, resetMs);
  const email = new Scope(limits.perEmail ?? DEFAULT_SIGN_IN_LIMITS.perEmail, resetMs);
  const address = new Scope(limits.perAddress ?? DEFAULT_SIGN_IN_LIMITS.perAddress, resetMs);
  // Email first, address second, NUL between: no email or address can contain NUL, so two
  // different pairs never collide.
  const pairKey = (e: string, a: string): string => `${e}\u0000${a}`;
  let reservations = 0;

  return {
    reserve(e, a, now) {
      const at = now.getTime();
      if (++reservations % SWEEP_EVERY === 0) for (const s of [pair, email, address]) s.sweep(at);
      const wait = Math.max(pair.waitMs(pairKey(e, a), at), email.waitMs(e, at), address.waitMs(a, at));
      if (wait > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
      pair.count(pairKey(e, a), at);
      email.count(e, at);
      address.count(a, at);
      return { ok: true };
    },
    succeeded(e, a, now) {
      const at = now.getTime();
      pair.clear(pairKey(e, a));
      email.refund(e, at);
      address.refund(a, at);
    },
  };
}
