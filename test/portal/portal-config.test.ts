/** The portal's configuration: defaults, validation naming the variable, and PORTAL_ENABLED=false. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { startService } from "../harness/service.js";

test("portal settings: defaults and validation", () => {
  const d = loadConfig({});
  assert.equal(d.portalEnabled, true);
  assert.equal(d.portalSessionTtlSeconds, 12 * 3600);
  assert.equal(d.portalCookieSecure, true);
  const c = loadConfig({ PORTAL_ENABLED: "false", PORTAL_SESSION_TTL_SECONDS: "600", PORTAL_COOKIE_SECURE: "0" });
  assert.deepEqual([c.portalEnabled, c.portalSessionTtlSeconds, c.portalCookieSecure], [false, 600, false]);
  assert.throws(
    () => loadConfig({ PORTAL_ENABLED: "yes please" }),
    (e: unknown) => e instanceof ConfigError && /PORTAL_ENABLED must be true or false/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ PORTAL_SESSION_TTL_SECONDS: "0" }),
    /PORTAL_SESSION_TTL_SECONDS must be between 1 and 2592000/,
  );
  assert.throws(() => loadConfig({ PORTAL_COOKIE_SECURE: "maybe" }), /PORTAL_COOKIE_SECURE/);
});

test("PORTAL_ENABLED=false: no portal routes; PORTAL_COOKIE_SECURE=false: unprefixed, non-Secure cookies", async () => {
  const off = await startService({ env: { PORTAL_ENABLED: "false" } });
  try {
    const res = await fetch(`${off.url}/portal/sign-in`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get("content-type")!, /json/, "the API's 404, not a portal page");
  } finally {
    await off.stop();
  }
  const plain = await startService({ env: { PORTAL_COOKIE_SECURE: "false" } });
  try {
    const res = await fetch(`${plain.url}/portal/sign-in`);
    assert.equal(res.status, 200);
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /^ts_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
  } finally {
    await plain.stop();
  }
});
