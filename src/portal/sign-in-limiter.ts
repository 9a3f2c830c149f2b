/**
 * Limits on failed sign-ins, against password guessing: per email and client address (one
 * person mistyping, or a targeted guess) and per address alone (one address spraying many
 * emails). Only failures count; a successful sign-in clears its email+address counter. Counters
 * live in process memory (RateLimiterMemory): a restart forgets them, and several instances each
 * count on their own, which bounds guessing per instance.
 */
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/** One limit: at most `points` failures per `durationSeconds`. */
export interface FailureLimit {
  points: number;
  durationSeconds: number;
}

/** Both limits; each has a default. */
export interface SignInLimits {
  /** Default 5 failures per 15 minutes. */
  perEmailAndAddress?: FailureLimit;
  /** Default 20 failures per 15 minutes. */
  perAddress?: FailureLimit;
}

/** What the limiter decides before a sign-in is checked. */
export type SignInGate = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Counts failed sign-ins and says when to stop checking passwords. */
export interface SignInLimiter {
  /** Whether an attempt may be checked at all. */
  check(email: string, address: string): Promise<SignInGate>;
  /** Counts a failed attempt. */
  failed(email: string, address: string): Promise<void>;
  /** Clears the email+address counter after a success. */
  succeeded(email: string, address: string): Promise<void>;
}

const DEFAULT_PAIR: FailureLimit = { points: 5, durationSeconds: 15 * 60 };
const DEFAULT_ADDRESS: FailureLimit = { points: 20, durationSeconds: 15 * 60 };

function blockedFor(res: RateLimiterRes | null, points: number): number {
  if (res === null || res.consumedPoints < points) return 0;
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/** Builds the limiter. */
export function createSignInLimiter(limits: SignInLimits = {}): SignInLimiter {
  const pairLimit = limits.perEmailAndAddress ?? DEFAULT_PAIR;
  const addressLimit = limits.perAddress ?? DEFAULT_ADDRESS;
  const pair = new RateLimiterMemory({ keyPrefix: "signin:pair", points: pairLimit.points, duration: pairLimit.durationSeconds });
  const address = new RateLimiterMemory({ keyPrefix: "signin:addr", points: addressLimit.points, duration: addressLimit.durationSeconds });
  // Email first, address second, NUL between: no email or address can contain NUL, so two
  // different pairs never collide.
  const pairKey = (email: string, addr: string): string => `${email}\u0000${addr}`;

  async function spend(limiter: RateLimiterMemory, key: string): Promise<void> {
    try {
      await limiter.consume(key);
    } catch (rej) {
      // Over the limit is expected (the next check refuses); anything else is a real failure.
      if (!(rej instanceof RateLimiterRes)) throw rej;
    }
  }

  return {
    async check(email, addr) {
      const [p, a] = await Promise.all([pair.get(pairKey(email, addr)), address.get(addr)]);
      const wait = Math.max(blockedFor(p, pairLimit.points), blockedFor(a, addressLimit.points));
      return wait === 0 ? { ok: true } : { ok: false, retryAfterSeconds: wait };
    },
    async failed(email, addr) {
      await Promise.all([spend(pair, pairKey(email, addr)), spend(address, addr)]);
    },
    async succeeded(email, addr) {
      await pair.delete(pairKey(email, addr));
    },
  };
}
