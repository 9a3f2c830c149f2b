/** The connection limits come from the environment, validated with messages naming the variable. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { DEFAULT_CONNECTION_LIMITS } from "../../src/transport/connection-limits.js";

test("connection limits default, read their variables, and refuse bad values by name", () => {
  assert.deepEqual(loadConfig({}).connectionLimits, DEFAULT_CONNECTION_LIMITS);
  const c = loadConfig({
    FIRST_BYTES_TIMEOUT_MS: "1000",
    HEADERS_TIMEOUT_MS: "2000",
    REQUEST_BODY_TIMEOUT_MS: "3000",
    KEEP_ALIVE_TIMEOUT_MS: "4000",
    HTTP2_IDLE_TIMEOUT_MS: "5000",
    HTTP2_MAX_CONCURRENT_STREAMS: "6",
    MAX_CONNECTIONS_PER_ADDRESS: "7",
  });
  assert.deepEqual(c.connectionLimits, {
    firstBytesTimeoutMs: 1000,
    headersTimeoutMs: 2000,
    requestBodyTimeoutMs: 3000,
    keepAliveTimeoutMs: 4000,
    http2IdleTimeoutMs: 5000,
    http2MaxConcurrentStreams: 6,
    maxConnectionsPerAddress: 7,
  });
  assert.throws(
    () => loadConfig({ FIRST_BYTES_TIMEOUT_MS: "soon" }),
    (e: unknown) => e instanceof ConfigError && /FIRST_BYTES_TIMEOUT_MS must be a whole number/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: "0" }),
    (e: unknown) => e instanceof ConfigError && /MAX_CONNECTIONS_PER_ADDRESS must be between 1/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ HEADERS_TIMEOUT_MS: "9000", REQUEST_BODY_TIMEOUT_MS: "8000" }),
    (e: unknown) =>
      e instanceof ConfigError && /HEADERS_TIMEOUT_MS \(9000\) must not exceed REQUEST_BODY_TIMEOUT_MS/.test(e.message),
  );
});

test("TRUST_PROXY: off by default; true, a hop count or a list of addresses/CIDRs; anything else refused by name", () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.0/8, ::1,loopback" }).trustProxy, [
    "10.0.0.0/8",
    "::1",
    "loopback",
  ]);
  assert.throws(
    () => loadConfig({ TRUST_PROXY: "10.0.0.0/33" }),
    (e: unknown) => e instanceof ConfigError && /TRUST_PROXY must be .*"10\.0\.0\.0\/33"/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ TRUST_PROXY: "proxy.internal" }),
    (e: unknown) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message),
  );
});

test("PAGE_TOKEN_SECRET: unset by default, refused by name when shorter than 32 characters", () => {
  assert.equal(loadConfig({}).pageTokenSecret, undefined);
  assert.equal(loadConfig({ PAGE_TOKEN_SECRET: "x".repeat(32) }).pageTokenSecret, "x".repeat(32));
  assert.throws(
    () => loadConfig({ PAGE_TOKEN_SECRET: "short" }),
    (e: unknown) => e instanceof ConfigError && /PAGE_TOKEN_SECRET must be at least 32 characters/.test(e.message),
  );
});
