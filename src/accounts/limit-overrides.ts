/**
 * Per-key limit overrides as stored (a JSON object). Both stores pass values through here on the
 * way in and out, so a typo such as `ratePerMinut` is refused at write time instead of silently
 * giving an Enterprise customer the plan default.
 */
import type { LimitOverrides } from "./caller.js";

/** Returns a clean copy of `value` or throws RangeError naming the bad field. */
export function parseOverrides(value: unknown): LimitOverrides {
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new RangeError("overrides must be a JSON object");
  }
  const out: LimitOverrides = {};
  for (const [field, v] of Object.entries(value)) {
    if (field === "ratePerMinute") {
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
        throw new RangeError(`overrides.ratePerMinute must be a whole number >= 1, got ${JSON.stringify(v)}`);
      }
      out.ratePerMinute = v;
    } else if (field === "quota") {
      if (v !== null && (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)) {
        throw new RangeError(
          `overrides.quota must be a whole number >= 0 or null (unlimited), got ${JSON.stringify(v)}`,
        );
      }
      out.quota = v;
    } else {
      throw new RangeError(`overrides has an unknown field "${field}" (known: ratePerMinute, quota)`);
    }
  }
  return out;
}
