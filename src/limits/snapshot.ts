/**
 * Where a caller stands against its limits at one instant: what the headers, the 429 message
 * and the usage RPC are all computed from. Plain data, no store access.
 */
import type { Plan } from "./plan-catalog.js";

/** The per-minute window. */
export interface RateState {
  limit: number;
  /** Calls left in the current window. */
  remaining: number;
  /** When the current window ends (or would end if opened now), epoch ms. */
  resetAt: number;
}

/** The quota period. */
export type QuotaState =
  | { unlimited: true }
  | {
      unlimited: false;
      limit: number;
      /** Calls counted in the period (at most limit). */
      used: number;
      remaining: number;
      /** Period start, epoch ms (for rolling windows: when the window opened). */
      periodStart: number;
      /** Period end = when the quota resets, epoch ms. */
      resetAt: number;
      /** Length of the period, seconds (the policy's window). */
      windowSeconds: number;
    };

/** A caller's limits at `now`. */
export interface LimitSnapshot {
  /** The instant the snapshot describes, epoch ms. */
  now: number;
  plan: Plan;
  rate: RateState;
  quota: QuotaState;
}
