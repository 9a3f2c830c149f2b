/**
 * Usage day strings: real calendar days only, and the UTC day of an instant.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkIncrement, isUsageDay, utcDay } from "../../src/accounts/usage-args.js";

describe("usage days", () => {
  it("accepts real calendar days and nothing else", () => {
    for (const d of ["2026-01-01", "2024-02-29", "2026-12-31"]) assert.ok(isUsageDay(d), d);
    for (const d of ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "20260101", "2026-01-01T00:00:00Z", ""]) {
      assert.equal(isUsageDay(d), false, d);
    }
  });

  it("takes the UTC day, not the local one", () => {
    assert.equal(utcDay(new Date("2026-03-01T23:59:59.999-05:00")), "2026-03-02");
    assert.equal(utcDay(new Date("2026-03-01T00:00:00Z")), "2026-03-01");
  });

  it("names the bad argument of an increment", () => {
    assert.throws(() => checkIncrement("2026-03-01", "leads", -2), /n must be a whole number >= 1, got -2/);
    assert.throws(
      () => checkIncrement("03/01/2026", "leads", 1),
      /day must be a calendar day YYYY-MM-DD, got "03\/01\/2026"/,
    );
    assert.doesNotThrow(() => checkIncrement("2026-03-01", "leads", 1));
  });
});
