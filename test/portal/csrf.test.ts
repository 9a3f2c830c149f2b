/** The portal's CSRF checks: constant-time token comparison and the same-origin rule. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyRequest } from "fastify";
import { crossOriginReason, newCsrfToken, tokensMatch } from "../../src/portal/web/csrf.js";

function req(headers: Record<string, string>, host = "portal.example:8080"): FastifyRequest {
  return { headers, host } as unknown as FastifyRequest;
}

test("tokens match only when equal and present", () => {
  const t = newCsrfToken();
  assert.match(t, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(t, newCsrfToken());
  assert.equal(tokensMatch(t, t), true);
  assert.equal(tokensMatch(t, `${t}x`), false);
  assert.equal(tokensMatch(t, t.slice(0, -1)), false);
  assert.equal(tokensMatch(t, ""), false);
  assert.equal(tokensMatch("", ""), false);
  assert.equal(tokensMatch(undefined, t), false);
});

test("same-origin rule: fetch metadata first, then Origin", () => {
  assert.equal(crossOriginReason(req({}), "https"), undefined, "no browser headers: the token layer decides");
  assert.equal(
    crossOriginReason(req({ "sec-fetch-site": "same-origin", origin: "https://portal.example:8080" }), "https"),
    undefined,
  );
  assert.equal(
    crossOriginReason(req({ "sec-fetch-site": "same-origin", origin: "null" }), "https"),
    undefined,
    "no-referrer makes Chromium send Origin: null",
  );
  assert.match(crossOriginReason(req({ origin: "null" }), "https")!, /null/);
  assert.match(crossOriginReason(req({ "sec-fetch-site": "same-site" }), "https")!, /same-site/);
  assert.match(crossOriginReason(req({ "sec-fetch-site": "cross-site" }), "https")!, /cross-site/);
  assert.match(crossOriginReason(req({ origin: "https://evil.example" }), "https")!, /evil/);
  assert.match(
    crossOriginReason(req({ origin: "http://portal.example:8080" }), "https")!,
    /not this site/,
    "scheme counts",
  );
  assert.match(
    crossOriginReason(req({ origin: "https://portal.example:9090" }), "https")!,
    /not this site/,
    "port counts",
  );
  assert.match(crossOriginReason(req({ origin: "not a url" }), "https")!, /not a URL/);
});
