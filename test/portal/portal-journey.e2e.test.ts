/**
 * The developer portal end to end in a real Chromium against a real service seeded with real
 * posts: sign up, choose Starter, create a key, run a semantic search from the explorer (the
 * result, X-RateLimit-Remaining, the usage counter up by exactly one), run the explorer's curl
 * and buf curl commands, rotate the key (the old one refused after the grace period), the admin
 * page, XSS payloads rendered inert, no secret or password hash in any page, log or API
 * response, the accessibility check on every page, and a screenshot of each page.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { startSmtp } from "../harness/smtp.js";
import { accessibilityProblems } from "./a11y-check.js";
import type { SeenResponse } from "./browser.js";
import { browserSkip, launchBrowser, recordPage, screenshot } from "./browser.js";

const smtp = await startSmtp();
after(() => smtp.stop());
const skip = browserSkip() || corporaSkip() || smtp.skip;

/** Small on purpose (one ingest run): enough posts for a meaningful search, seeded in seconds. */
const SAMPLE = [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 100 }];
/** Short, so the test can watch a rotated-out key stop working. */
const GRACE_SECONDS = 6;

const ACCOUNT_NAME = `Mallory <script>alert("name")</script> "><img src=x onerror=alert(1)>`;
const KEY_NAME = `prod <script>alert("key")</script>"><img src=x onerror=alert(2)>`;
const QUERY = `how do I find my first customers <script>alert("q")</script>`;
const PASSWORD = "correct horse battery staple";

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs a shell command line (the explorer's curl / buf curl) with the key in the environment. */
function shell(command: string, key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    THREADSIGHT_API_KEY: key,
    PATH: `${path.join(PACKAGE_ROOT, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
    NO_COLOR: "1",
  };
  return new Promise((resolve) => {
    execFile("bash", ["-c", command], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : 1, stdout, stderr });
    });
  });
}

describe("developer portal journey in Chromium", { skip }, () => {
  let svc: RunningService;
  let dataDir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let seen: { responses: SeenResponse[]; dialogs: string[] };
  const email = `dev-${process.pid}@example.com`;
  let firstKey = "";
  let secondKey = "";
  let oldKeyExpiresAt = 0;
  const a11y: string[] = [];

  async function check(name: string): Promise<void> {
    for (const p of await accessibilityProblems(page)) a11y.push(`${name}: ${p}`);
    await screenshot(page, name);
  }

  async function usedCount(): Promise<number> {
    await page.goto(`${svc.url}/portal/dashboard`);
    return Number(await page.locator("#usage-used").textContent());
  }

  async function tryIt(
    operation: string,
    key: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    await page.goto(`${svc.url}/portal/explorer`);
    const section = page.locator(`section[data-operation="${operation}"][data-ready="true"]`);
    await section.waitFor();
    await page.fill("#explorer-key", key);
    for (const [name, value] of Object.entries(fields)) await page.fill(`#${operation}-${name}`, value);
    await section.getByRole("button", { name: "Try it" }).click();
    const status = section.locator(".response-status[data-status]");
    await status.waitFor();
    const headers: Record<string, string> = {};
    for (const row of await section.locator(".response-headers tbody tr").all()) {
      headers[(await row.getAttribute("data-header"))!] = (await row.locator("td").textContent())!;
    }
    return {
      status: Number(await status.getAttribute("data-status")),
      headers,
      body: (await section.locator(".response-body").textContent())!,
    };
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-portal-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, SAMPLE);
    svc = await startService({
      dataDir,
      env: { KEY_ROTATION_GRACE_SECONDS: String(GRACE_SECONDS), SMTP_URL: smtp.url },
    });
    browser = await launchBrowser();
    context = await browser.newContext({
      viewport: { width: 1200, height: 900 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    page = await context.newPage();
    seen = recordPage(page);
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  test("sign up (a hostile name is shown literally); Starter needs payment, an operator grants it", async () => {
    await page.goto(`${svc.url}/portal/sign-up`);
    await check("sign-up");
    await page.fill("#name", ACCOUNT_NAME);
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/portal\/sign-up\/sent$/);
    await check("sign-up-sent");
    // The link from the mail the real SMTP server received, opened on this server.
    const mail = await smtp.waitFor(email);
    const link = new URL(/(https?:\/\/\S+\/portal\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
    await page.goto(`${svc.url}${link.pathname}${link.search}`);
    await check("verify-email");
    await page.getByRole("button", { name: "Confirm my address" }).click();
    await page.waitForURL(/\/portal\/plans\?welcome=1$/);
    assert.equal(await page.locator(".who").textContent(), ACCOUNT_NAME);
    assert.equal(await page.locator("img").count(), 0, "an injected <img> would be in the DOM");

    // No billing provider is configured: a paid plan is refused and nothing changes.
    const refused = page.waitForResponse(
      (r) => r.url() === `${svc.url}/portal/plans` && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Choose Starter" }).click();
    assert.equal((await refused).status(), 403);
    assert.match(await page.content(), /needs payment/);
    // The operator grants it (threadsight accounts set-plan); the page then shows it.
    const account = await svc.service.accounts.findAccountByEmail(email);
    await svc.service.keys.setAccountPlan(account!.id, "starter");
    await page.goto(`${svc.url}/portal/plans`);
    assert.match((await page.locator("tr.current th").textContent())!, /Starter/);
    await check("plans");
  });

  test("create a key: the secret is shown once, with a copy button, and handed to the explorer", async () => {
    await page.goto(`${svc.url}/portal/keys`);
    await page.fill("#key-name", KEY_NAME);
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.locator("#new-key-secret");
    await secret.waitFor();
    firstKey = await secret.inputValue();
    assert.match(firstKey, /^ts_live_[0-9A-Za-z]+_[0-9A-Za-z]{32}$/);
    assert.match((await page.locator(".fresh-key .warning").textContent())!, /will not be shown again/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.locator("#copy-status", { hasText: "Copied" }).waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), firstKey);
    assert.equal(await page.locator("tbody tr th").first().textContent(), KEY_NAME);
    assert.equal(await page.locator("img").count(), 0);
    await check("keys-new-key");

    await page.goto(`${svc.url}/portal/keys`);
    assert.ok(!(await page.content()).includes(firstKey), "the secret must not be shown a second time");
    assert.equal(await page.locator("tbody tr .key-status").first().textContent(), "Active");
    await check("keys");
  });

  test("explorer: a semantic search returns posts and X-RateLimit-Remaining; usage goes up by exactly one", async () => {
    const before = await usedCount();

    await page.goto(`${svc.url}/portal/explorer`);
    await page.locator('section[data-operation="semantic_search"][data-ready="true"]').waitFor();
    assert.equal(
      await page.inputValue("#explorer-key"),
      firstKey,
      "prefilled from the keys page through sessionStorage",
    );
    const res = await tryIt("semantic_search", firstKey, { query: QUERY, limit: "5" });
    assert.equal(res.status, 200, res.body);
    const body = JSON.parse(res.body);
    assert.equal(body.success, true);
    assert.ok(body.data.results.length > 0 && body.data.results.length <= 5);
    assert.equal(body.data.query, QUERY);
    const section = page.locator('section[data-operation="semantic_search"]');
    assert.ok(
      (await section.locator(".response-body").textContent())!.includes('<script>alert(\\"q\\")</script>'),
      "the query is shown as text",
    );
    assert.equal(Number(res.headers["x-ratelimit-remaining"]), Number(res.headers["x-ratelimit-limit"]) - 1);
    assert.equal(res.headers["x-ratelimit-limit"], "50", "Starter: 50 requests per minute");
    assert.equal(res.headers["x-quota-limit"], "5000");
    await check("explorer");

    const curl = (await section.locator(".cmd-curl").textContent())!;
    const buf = (await section.locator(".cmd-buf").textContent())!;
    assert.ok(!curl.includes(firstKey) && !buf.includes(firstKey), "commands carry a placeholder, not the key");
    assert.match(buf, /^buf curl --protocol grpc --http2-prior-knowledge/);
    assert.match(buf, /\/threadsight\.v1\.SearchService\/SemanticSearch'$/);

    // Exactly one more call, even if recording the usage row lags the response a little.
    let after = await usedCount();
    for (let i = 0; i < 40 && after === before; i++) {
      await sleep(250);
      after = await usedCount();
    }
    assert.equal(after, before + 1);
    assert.equal(await page.locator('td[data-operation="semantic_search"]').textContent(), "1");
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(
      await page.locator(`details.chart-table tr:has(th:text-is("${today}")) td`).textContent(),
      String(after),
      "the chart's table has today's calls",
    );
    assert.match((await page.locator("svg[role=img] desc").textContent())!, new RegExp(`^${after} calls? from `));
    await check("dashboard");

    // The commands the explorer shows work as printed.
    const curlRun = await shell(curl, firstKey);
    assert.equal(curlRun.code, 0, curlRun.stderr);
    assert.equal(JSON.parse(curlRun.stdout).data.query, QUERY);
    const bufRun = await shell(buf, firstKey);
    assert.equal(bufRun.code, 0, bufRun.stderr);
    assert.equal(JSON.parse(bufRun.stdout).query, QUERY);
  });

  test("rotate: a new secret once; the old key is refused after the grace period", async () => {
    await page.goto(`${svc.url}/portal/keys`);
    await page.getByRole("link", { name: `Rotate key ${KEY_NAME}` }).click();
    await page.getByRole("button", { name: "Yes, rotate this key" }).click();
    const secret = page.locator("#new-key-secret");
    await secret.waitFor();
    secondKey = await secret.inputValue();
    assert.notEqual(secondKey, firstKey);
    const oldRow = page.locator("tbody tr").filter({ hasText: "Rotated" });
    assert.equal(await oldRow.count(), 1);
    const keys = await svc.service.keys.listKeys();
    const old = keys.find((k) => firstKey.startsWith(k.displayPrefix) && k.rotatedTo !== null);
    assert.ok(old?.expiresAt, "the old key has an end of grace");
    oldKeyExpiresAt = old.expiresAt.getTime();
    await screenshot(page, "keys-rotated");

    await sleep(Math.max(0, oldKeyExpiresAt - Date.now()) + 500);
    const refused = await tryIt("semantic_search", firstKey, { query: "pricing a SaaS product" });
    assert.equal(refused.status, 401, refused.body);
    assert.equal(JSON.parse(refused.body).success, false);
    const accepted = await tryIt("semantic_search", secondKey, { query: "pricing a SaaS product" });
    assert.equal(accepted.status, 200, accepted.body);
  });

  test("admin page: 403 for a non-admin, every account for an admin", async () => {
    const forbidden = await page.goto(`${svc.url}/portal/admin`);
    assert.equal(forbidden?.status(), 403);
    await check("admin-forbidden");
    const account = await svc.service.accounts.findAccountByEmail(email);
    assert.ok(account);
    await svc.service.accounts.setAdmin(account.id, true);
    const allowed = await page.goto(`${svc.url}/portal/admin`);
    assert.equal(allowed?.status(), 200);
    const row = page.locator("table.accounts tbody tr").filter({ hasText: email });
    assert.equal(await row.count(), 1);
    assert.match((await row.locator("th").textContent())!, /^Mallory <script>/);
    assert.equal(await page.locator("img").count(), 0);
    await check("admin");
  });

  test("no dialog fired, and every page passed the accessibility check", () => {
    assert.deepEqual(seen.dialogs, []);
    assert.deepEqual(a11y, []);
  });

  test("no key secret, password or password hash in any page, log line or API response", async () => {
    const account = await svc.service.accounts.findAccountByEmail(email);
    const hash = await svc.service.accounts.getPasswordHash(account!.id);
    assert.ok(typeof hash === "string" && hash.length > 20);
    const sessionCookie = (await context.cookies()).find((c) => c.name.endsWith("ts_session"))?.value;
    assert.ok(sessionCookie);
    const usage = await fetch(`${svc.url}/api/v1/usage`, { headers: { authorization: `Bearer ${secondKey}` } });
    assert.equal(usage.status, 200);
    const usageText = await usage.text();

    // The one response allowed to hold a secret is the GET after the form's redirect (creation, rotation).
    const shown = (r: SeenResponse): boolean =>
      r.method === "GET" &&
      /^\/portal\/keys\?done=(created|rotated)$/.test(new URL(r.url).pathname + new URL(r.url).search);
    const pages = seen.responses.filter((r) => !shown(r));
    assert.ok(pages.length >= 10, `recorded ${pages.length} responses`);
    assert.equal(seen.responses.filter(shown).length, 2);
    const haystacks: [string, string][] = [
      ...pages.map((r): [string, string] => [`${r.method} ${r.url}`, r.body]),
      ["service logs", svc.logs.join("\n")],
      ["GET /api/v1/usage", usageText],
    ];
    for (const [where, text] of haystacks) {
      for (const [what, secret] of [
        ["first key", firstKey],
        ["second key", secondKey],
        ["password hash", hash],
        ["password", PASSWORD],
      ] as const) {
        assert.ok(!text.includes(secret), `${what} found in ${where}`);
      }
    }
    assert.ok(!svc.logs.join("\n").includes(sessionCookie), "session token in the logs");
  });

  test("sign out ends the session", async () => {
    await page.goto(`${svc.url}/portal/dashboard`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/portal\/sign-in$/);
    await page.goto(`${svc.url}/portal/dashboard`);
    assert.match(page.url(), /\/portal\/sign-in\?next=%2Fportal%2Fdashboard$/);
  });
});
