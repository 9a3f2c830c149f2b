/** The delivery retry schedule from the environment: its defaults, MONITORS_RETRY_*, and their errors. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";

test("the schedule defaults to 10 s doubling, capped at 1 h, for 24 h; the variables set it", () => {
  assert.deepEqual(loadConfig({}).monitorsRetry, {
    baseDelayMs: 10_000,
    maxDelayMs: 3_600_000,
    retryWindowMs: 86_400_000,
  });
  assert.deepEqual(
    loadConfig({ MONITORS_RETRY_BASE_MS: "50", MONITORS_RETRY_MAX_DELAY_MS: "400", MONITORS_RETRY_WINDOW_MS: "60000" })
      .monitorsRetry,
    { baseDelayMs: 50, maxDelayMs: 400, retryWindowMs: 60_000 },
  );
});

test("bad retry settings are refused naming the variable and the rule", () => {
  const refused = (env: Record<string, string>, re: RegExp) =>
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
    );
  refused({ MONITORS_RETRY_BASE_MS: "soon" }, /MONITORS_RETRY_BASE_MS must be a whole number, got "soon"/);
  refused({ MONITORS_RETRY_BASE_MS: "0" }, /MONITORS_RETRY_BASE_MS must be between 1 and 3600000, got 0/);
  refused({ MONITORS_RETRY_WINDOW_MS: "10" }, /MONITORS_RETRY_WINDOW_MS must be between 1000 and/);
  refused(
    { MONITORS_RETRY_BASE_MS: "5000", MONITORS_RETRY_MAX_DELAY_MS: "100" },
    /MONITORS_RETRY_MAX_DELAY_MS \(100\) must not be below MONITORS_RETRY_BASE_MS \(5000\)/,
  );
});
