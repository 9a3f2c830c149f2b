/**
 * The portal's defences in a real Chromium against a real service: CSRF (missing, wrong and
 * cross-origin tokens, a real cross-site form, the pre-session token), sessions (sign-out,
 * forged and expired cookies), security headers, PortalErrors as 4xx pages, field errors wired
 * for assistive technology, keyboard-only sign-in, and the accessibility checker itself.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { accessibilityProblems } from "./a11y-check.js";
import { browserSkip, launchBrowser, screenshot } from "./browser.js";

const skip = browserSkip();
const PASSWORD = "a long enough passphrase";
const SESSION_COOKIE = "__Host-ts_session";

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Signs up and then in through the forms in a fresh context; returns the signed-in page. */
async function signUp(browser: Browser, url: string, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/portal/sign-up`);
  await page.fill("#name", "Casey");
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // Sign-up starts no session (it answers alike for taken emails); sign in with the password.
  await page.waitForURL(/\/portal\/sign-up\/sent$/);
  await page.goto(`${url}/portal/sign-in`);
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/portal\/dashboard/);
  return { context, page };
}

/**
 * A session cookie as the browser would hold it. Set through the https form of the URL: CDP
 * refuses Secure cookies for an http URL, and Chromium sends them to http://127.0.0.1 anyway
 * (a secure context).
 */
function hostCookie(
  url: string,
  value: string,
): { name: string; value: string; url: string; secure: boolean; httpOnly: boolean; sameSite: "Lax" } {
  return {
    name: SESSION_COOKIE,
    value,
    url: url.replace(/^http:/, "https:"),
    secure: true,
    httpOnly: true,
    sameSite: "Lax",
  };
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const c = (await context.cookies()).find((x) => x.name === SESSION_COOKIE);
  assert.ok(c, "the session cookie is set");
  assert.equal(c.httpOnly, true);
  assert.equal(c.secure, true);
  assert.equal(c.sameSite, "Lax");
  assert.equal(c.path, "/");
  return c.value;
}

describe("developer portal security in Chromium", { skip }, () => {
  let svc: RunningService;
  let browser: Browser;
  before(async () => {
    svc = await startService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  test("pages carry the security headers; no HSTS over plain HTTP", async () => {
    const res = await fetch(`${svc.url}/portal/sign-in`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-security-policy")?.includes("script-src 'self'"), true);
    assert.match(
      res.headers.get("content-security-policy")!,
      /frame-ancestors 'none'.*form-action 'self'.*base-uri 'none'/,
    );
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("strict-transport-security"), null);
    assert.doesNotMatch(await res.text(), /<script(?![^>]*\bsrc="\/portal\/assets\/)/, "no inline script");
  });

  test("keyboard only: Tab reaches the sign-in fields with a visible focus ring, Enter submits", async () => {
    const { context } = await signUp(browser, svc.url, "keys@example.com");
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(`${svc.url}/portal/sign-in`);
    assert.deepEqual(await accessibilityProblems(page), []);
    await screenshot(page, "sign-in");
    const order: string[] = [];
    for (let i = 0; i < 10 && order.at(-1) !== "email"; i++) {
      await page.keyboard.press("Tab");
      order.push(
        await page.evaluate(
          () =>
            (document.activeElement as { id?: string; textContent?: string | null } | null)?.id ||
            (document.activeElement?.textContent ?? "").trim(),
        ),
      );
    }
    assert.equal(order[0], "Skip to content", "the skip link comes first");
    assert.equal(order.at(-1), "email", `focus order: ${order.join(" > ")}`);
    const ring = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement!);
      return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
    });
    assert.notEqual(ring.style, "none");
    assert.ok(ring.width >= 2, `outline ${ring.width}px`);
    await page.keyboard.type("keys@example.com");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "password");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/portal\/dashboard$/);
    await context.close();
  });

  test("errors are shown next to their field and linked to it", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/portal/sign-up`);
    await page.fill("#name", "Dana");
    await page.fill("#email", "dana@example.com");
    await page.fill("#password", "short");
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Create account" }).click(),
    ]);
    assert.equal(res.status(), 400);
    await page.locator("#password-error").waitFor();
    assert.match((await page.locator("#password-error").textContent())!, /password must be/);
    assert.equal(await page.getAttribute("#password", "aria-invalid"), "true");
    assert.match((await page.getAttribute("#password", "aria-describedby"))!, /\bpassword-error\b/);
    assert.equal(await page.inputValue("#email"), "dana@example.com", "other fields keep their values");
    assert.deepEqual(await accessibilityProblems(page), []);
    await screenshot(page, "sign-up-error");

    await page.goto(`${svc.url}/portal/sign-in`);
    await page.fill("#email", "nobody@example.com");
    await page.fill("#password", "wrong password entirely");
    const [bad] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST"),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    assert.equal(bad.status(), 401);
    assert.match((await page.locator("[role=alert]").textContent())!, /email or password/);
    await context.close();
  });

  test("sign-in attempts are rate limited: a 429 page that says when to retry", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const statuses: number[] = [];
    for (let i = 0; i < 8 && statuses.at(-1) !== 429; i++) {
      await page.goto(`${svc.url}/portal/sign-in`);
      await page.fill("#email", "target@example.com");
      await page.fill("#password", `guess number ${i}`);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      statuses.push(res.status());
      if (res.status() === 429) assert.ok(Number(res.headers()["retry-after"]) >= 1);
    }
    assert.equal(statuses.at(-1), 429, statuses.join(","));
    assert.ok(
      statuses.slice(0, -1).every((s) => s === 401),
      statuses.join(","),
    );
    assert.match((await page.locator("[role=alert]").textContent())!, /\S/);
    await screenshot(page, "sign-in-rate-limited");
    await context.close();
  });

  test("CSRF: a POST without, or with a wrong, token or from another origin is refused with 403", async () => {
    const { context, page } = await signUp(browser, svc.url, "csrf@example.com");
    await page.goto(`${svc.url}/portal/keys`);
    const token = await page.locator('form[action="/portal/keys"] input[name="csrf_token"]').inputValue();
    assert.ok(token.length >= 20);
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      context.request.post(`${svc.url}/portal/keys`, {
        form,
        headers: { origin: svc.url, ...headers },
        maxRedirects: 0,
      });

    assert.equal((await post({ name: "no token" })).status(), 403);
    assert.equal((await post({ name: "wrong token", csrf_token: token.slice(0, -2) + "xx" })).status(), 403);
    assert.equal(
      (await post({ name: "evil origin", csrf_token: token }, { origin: "http://evil.example" })).status(),
      403,
    );
    assert.equal(
      (await post({ name: "cross site", csrf_token: token }, { "sec-fetch-site": "cross-site" })).status(),
      403,
    );
    const refused = await post({ name: "refused page" });
    assert.match(await refused.text(), /security token/);
    const accepted = await post({ name: "accepted", csrf_token: token });
    assert.equal(accepted.status(), 303, "the same request with the token works (post/redirect/get)");
    assert.equal(accepted.headers()["location"], "/portal/keys?done=created");

    await page.goto(`${svc.url}/portal/keys`);
    assert.deepEqual(
      await page.locator("tbody tr th").allTextContents(),
      ["accepted"],
      "refused requests created nothing",
    );

    // Pre-session forms: the token must match the cookie.
    const signIn = await fetch(`${svc.url}/portal/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "csrf@example.com", password: PASSWORD, csrf_token: "made-up" }),
      redirect: "manual",
    });
    assert.equal(signIn.status, 403);
    await context.close();
  });

  test("CSRF: a real form on another origin cannot change the plan", async () => {
    const { context, page } = await signUp(browser, svc.url, "victim@example.com");
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        `<!doctype html><form id="f" method="post" action="${svc.url}/portal/plans"><input name="plan" value="enterprise"><input name="csrf_token" value="guess"></form><script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    try {
      const port = (attacker.address() as { port: number }).port;
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${svc.url}/portal/plans` && r.request().method() === "POST"),
        page.goto(`http://127.0.0.1:${port}/`),
      ]);
      assert.equal(res.status(), 403);
      const account = await svc.service.accounts.findAccountByEmail("victim@example.com");
      assert.equal(account?.plan, "free", "the plan did not change");
    } finally {
      attacker.close();
      await context.close();
    }
  });

  test("sessions: sign-out invalidates the cookie; a forged cookie goes to sign in", async () => {
    const { context, page } = await signUp(browser, svc.url, "session@example.com");
    const token = await sessionCookie(context);
    // Control: the same cookie placed in another browser signs in there, so the refusals below
    // come from the server, not from a cookie that never arrived.
    const copy = await browser.newContext();
    await copy.addCookies([hostCookie(svc.url, token)]);
    const copied = await copy.newPage();
    await copied.goto(`${svc.url}/portal/keys`);
    assert.match(copied.url(), /\/portal\/keys$/);
    await copy.close();

    await page.goto(`${svc.url}/portal/dashboard`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/portal\/sign-in$/);
    await context.close();

    for (const value of [token, randomBytes(32).toString("base64url"), "not a token"]) {
      const replay = await browser.newContext();
      await replay.addCookies([hostCookie(svc.url, encodeURIComponent(value))]);
      const p = await replay.newPage();
      const res = await p.goto(`${svc.url}/portal/keys`);
      assert.equal(res?.status(), 200);
      assert.match(
        p.url(),
        /\/portal\/sign-in\?next=%2Fportal%2Fkeys$/,
        `cookie ${value.slice(0, 8)}… must not sign in`,
      );
      assert.equal(
        (await replay.cookies()).some((c) => c.name === SESSION_COOKIE),
        false,
        "the stale cookie is deleted",
      );
      await replay.close();
    }
  });

  test("sessions: an expired session is refused even if the browser still sends it", async () => {
    const short = await startService({ env: { PORTAL_SESSION_TTL_SECONDS: "8" } });
    try {
      const { context } = await signUp(browser, short.url, "expiry@example.com");
      const token = await sessionCookie(context);
      await sleep(8_500);
      // Max-Age already made the browser drop it; put it back, as a copied cookie would be.
      await context.addCookies([hostCookie(short.url, token)]);
      const page = await context.newPage();
      await page.goto(`${short.url}/portal/dashboard`);
      assert.match(page.url(), /\/portal\/sign-in\?next=%2Fportal%2Fdashboard$/);
      await context.close();
    } finally {
      await short.stop();
    }
  });

  test("failures the user can act on are 4xx pages, never 500", async () => {
    const { context, page } = await signUp(browser, svc.url, "errors@example.com");
    await page.goto(`${svc.url}/portal/keys`);
    const token = await page.locator('form[action="/portal/keys"] input[name="csrf_token"]').inputValue();
    const post = (path: string, form: Record<string, string>) =>
      context.request.post(`${svc.url}${path}`, {
        form: { csrf_token: token, ...form },
        headers: { origin: svc.url },
        maxRedirects: 0,
      });
    const unknownKey = await post("/portal/keys/nokey000000000/revoke", {});
    assert.equal(unknownKey.status(), 404);
    const badPlan = await post("/portal/plans", { plan: "platinum" });
    assert.equal(badPlan.status(), 400);
    assert.match(await badPlan.text(), /plan/);
    const emptyName = await post("/portal/keys", { name: "" });
    assert.equal(emptyName.status(), 400);
    const admin = await page.goto(`${svc.url}/portal/admin`);
    assert.equal(admin?.status(), 403);
    const missing = await page.goto(`${svc.url}/portal/no-such-page`);
    assert.equal(missing?.status(), 404);
    assert.deepEqual(await accessibilityProblems(page), []);
    await context.close();
  });

  test("the accessibility check finds what it looks for", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent(
      `<html><body><h1>x</h1><input id="a"><svg><rect width="5" height="5"></rect></svg><img src="data:,"><p style="color:#aaa;background:#fff">faint</p><button></button></body></html>`,
    );
    const problems = (await accessibilityProblems(page)).join("\n");
    for (const expected of [
      "html has no lang",
      "input#a has no label",
      "svg has no text alternative",
      "img has no alt",
      '"faint" contrast',
      "button has no accessible name",
    ]) {
      assert.ok(problems.includes(expected), `missing "${expected}" in:\n${problems}`);
    }
    await context.close();
  });
});
