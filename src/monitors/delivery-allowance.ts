/**
 * What the delivery workers ask before each send: may this account send one more delivery now?
 * The answer comes from the plan's daily delivery limit (limits/daily-deliveries.ts); the workers
 * only act on it, so the monitors code does not know where counters live.
 */

/** The answer for one send. */
export type Allowance =
  /** Send; `token` gives the point back with {@link DeliveryAllowance.giveBack} if the send fails. */
  | { ok: true; token: AllowanceToken }
  /** Do not send before `retryAt` (epoch ms); `reason` is what the owner reads in ListDeliveries. */
  | { ok: false; retryAt: number; reason: string };

/** Where a taken point was counted, so it can be given back to the same day. */
export interface AllowanceToken {
  accountId: string;
  /** Epoch ms the point was taken. */
  at: number;
}

/** The daily delivery budget of accounts. */
export interface DeliveryAllowance {
  /** Takes one delivery of the account's budget for the day containing `now`. */
  take(accountId: string, now: number): Promise<Allowance>;
  /** Returns a point whose send failed: only deliveries a receiver accepted use up the budget. */
  giveBack(token: AllowanceToken): Promise<void>;
}
