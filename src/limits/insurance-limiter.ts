/**
 * The per-process limiter that answers while Redis cannot (rate-limiter-flexible's
 * `insuranceLimiter`). For quota counters it also carries the fail-mode policy:
 *
 * - It mirrors Redis: after each call Redis admitted, the key's count and expiry are copied here,
 *   so during an outage this process continues from the last count it saw instead of from zero.
 * - `closed` (QUOTA_FAIL_MODE default): a key this process holds no mirror of is refused with
 *   {@link QuotaStateUnknownError} (the call gets 503): nothing shows it has quota left.
 *   `open`: such a key starts from zero in this process.
 * - Every point it hands out is remembered as debt; when Redis answers for the key again, the
 *   debt is added to the shared counter, so calls admitted during the outage still count.
 */
import { RateLimiterRes } from "rate-limiter-flexible";
import { MemoryLimiter } from "./memory-limiter.js";

/** How quotas behave while Redis is unreachable. */
export type QuotaFailMode = "open" | "closed";

/** Thrown (as a limiter rejection) when fail-closed meets a key with no known quota state. */
export class QuotaStateUnknownError extends Error {
  override readonly name = "QuotaStateUnknownError";
}

type Options = { customDuration?: number } & Record<string, unknown>;

/** Insurance limiter for one limit value; see the module comment. */
export class InsuranceLimiter extends MemoryLimiter {
  private readonly served = new WeakSet<RateLimiterRes>();
  private readonly debts = new Map<string, number>();

  constructor(
    opts: { keyPrefix: string; points: number; duration: number },
    /** null: a plain per-process limiter (per-minute windows), no mirror and no debt. */
    private readonly failMode: QuotaFailMode | null,
  ) {
    super(opts);
  }

  override async consume(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    const k = String(key);
    if (this.failMode === "closed" && (await this.get(k)) === null) {
      throw new QuotaStateUnknownError(
        "quota state unknown while the limits store is unavailable (QUOTA_FAIL_MODE=closed)",
      );
    }
    try {
      const res = await super.consume(k, points, options);
      this.served.add(res);
      if (this.failMode !== null) this.debts.set(k, (this.debts.get(k) ?? 0) + points);
      return res;
    } catch (rej) {
      if (rej instanceof RateLimiterRes) {
        this.served.add(rej);
        if (this.failMode !== null) this.debts.set(k, (this.debts.get(k) ?? 0) + points);
      }
      throw rej;
    }
  }

  override async reward(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    const k = String(key);
    const res = await super.reward(k, points, options);
    if (this.failMode !== null) {
      const left = (this.debts.get(k) ?? 0) - points;
      if (left > 0) this.debts.set(k, left);
      else this.debts.delete(k);
    }
    return res;
  }

  override async penalty(key: string | number, points = 1, options?: Options): Promise<RateLimiterRes> {
    const k = String(key);
    const res = await super.penalty(k, points, options);
    if (this.failMode !== null) this.debts.set(k, (this.debts.get(k) ?? 0) + points);
    return res;
  }

  /** True when this limiter (not Redis) produced the result. */
  answered(res: RateLimiterRes): boolean {
    return this.served.has(res);
  }

  /** Copies Redis's view of a key (count after an admitted call) unless ours is already higher. */
  async mirror(key: string, res: RateLimiterRes): Promise<void> {
    if (this.failMode === null || res.msBeforeNext <= 0) return;
    const mine = await this.get(key);
    if (mine !== null && mine.msBeforeNext > 0 && mine.consumedPoints >= res.consumedPoints) return;
    await this.set(key, res.consumedPoints, Math.ceil(res.msBeforeNext / 1000));
  }

  /** Takes (and forgets) the points handed out for `key` while Redis was away. */
  takeDebt(key: string): number {
    const d = this.debts.get(key) ?? 0;
    this.debts.delete(key);
    return d;
  }
}
