/**
 * The portal's monitors page in a real Chromium against a real service: a bad form comes back
 * with the error next to the field it names; a monitor is created (its signing secret shown
 * once), listed, paused, resumed and its secret rotated; the explorer's query pre-fills the
 * form; and after a real `threadsight ingest` writes a matching post, the real webhook receiver
 * gets the event signed with the rotated secret and the monitor's page lists the delivery
 * (status, response code). Every page passes the accessibility check; an HTML name stays inert.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { verifySignature } from "../../src/monitors/webhook-signature.js";
import { runIngest } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { accessibilityProblems } from "./a11y-check.js";
import { browserSkip, launchBrowser, recordPage, screenshot } from "./browser.js";

const PASSWORD = "correct horse battery staple";
const MONITOR_NAME = `pricing <script>alert("m")</script>"><img src=x onerror=alert(3)>`;
/** A word no other post has, so the one post written below is the only match. */
const WORD = `quokkaware${process.pid}`;

interface Receipt {
  raw: string;
  signature: string;
}

/** A webhook receiver on loopback that answers 200 and keeps every request. */
async function receiver(): Promise<{ url: string; receipts: Receipt[]; close(): Promise<void> }> {
  const receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      receipts.push({ raw, signature: String(req.headers["threadsight-signature"]) });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    receipts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(cond: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("portal monitors page in Chromium", { skip: browserSkip() }, () => {
  let svc: RunningService;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let browser: Browser;
  let page: Page;
  let seen: ReturnType<typeof recordPage>;
  let monitorUrl = "";
  let firstSecret = "";
  let rotatedSecret = "";
  const email = `monitors-${process.pid}@example.com`;
  const a11y: string[] = [];

  async function check(name: string): Promise<void> {
    for (const p of await accessibilityProblems(page)) a11y.push(`${name}: ${p}`);
    await screenshot(page, name);
  }

  async function submitMonitor(fields: { name: string; kind: string; query: string; url: string }): Promise<number> {
    await page.fill("#monitor-name", fields.name);
    await page.selectOption("#monitor-kind", fields.kind);
    await page.fill("#monitor-query", fields.query);
    await page.fill("#monitor-url", fields.url);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/portal/monitors")),
      page.getByRole("button", { name: "Create monitor" }).click(),
    ]);
    await page.waitForLoadState();
    return res.status();
  }

  before(async () => {
    rx = await receiver();
    svc = await startService({ env: { MONITORS_ALLOW_PRIVATE_WEBHOOKS: "true" } });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    seen = recordPage(page);

    await page.goto(`${svc.url}/portal/sign-up`);
    await page.fill("#name", "Monitor Tester");
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/portal\/sign-up\/sent$/);
    // With no billing provider the operator grants a plan that allows monitors.
    const account = await svc.service.accounts.findAccountByEmail(email);
    await svc.service.keys.setAccountPlan(account!.id, "starter");
    await page.goto(`${svc.url}/portal/sign-in`);
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/portal\/dashboard$/);
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    await rx?.close();
  });

  test("the page is signed-in only", async () => {
    const res = await fetch(`${svc.url}/portal/monitors`, { redirect: "manual" });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location") ?? "", /\/portal\/sign-in\?next=%2Fportal%2Fmonitors$/);
  });

  test("bad input comes back with the error next to the field it names", async () => {
    await page.goto(`${svc.url}/portal/monitors`);
    await page.getByRole("link", { name: "Monitors" }).waitFor();
    assert.equal(await submitMonitor({ name: "bad", kind: "keywords", query: "notion AND (", url: rx.url }), 400);
    assert.match(
      (await page.locator("#monitor-query-error").textContent())!,
      /^monitor\.query is not a valid keyword expression/,
    );
    assert.equal(await page.getAttribute("#monitor-query", "aria-invalid"), "true");
    assert.equal(await page.inputValue("#monitor-query"), "notion AND (", "values are kept");
    assert.equal(await page.inputValue("#monitor-kind"), "keywords");
    await check("monitors-error-query");

    assert.equal(await submitMonitor({ name: "bad", kind: "keywords", query: WORD, url: "ftp://example.com/in" }), 400);
    assert.match(
      (await page.locator("#monitor-url-error").textContent())!,
      /^monitor\.channels\[0\]\.url must use https \(or http\), got ftp:$/,
    );
    assert.match((await page.locator(".error-summary").textContent())!, /url/);
    assert.equal(await page.locator("table.monitors").count(), 0, "nothing was created");

    // Signed in, same origin, but without the form's CSRF token: refused before anything is read.
    const forged = await page.request.post(`${svc.url}/portal/monitors`, {
      form: { name: "forged", kind: "keywords", query: WORD, url: rx.url },
      headers: { origin: svc.url },
      maxRedirects: 0,
    });
    assert.equal(forged.status(), 403);
    assert.match(await forged.text(), /security token is missing/);
  });

  test("create: the secret is shown once, then the monitor is listed", async () => {
    await page.goto(`${svc.url}/portal/monitors`);
    assert.equal(await submitMonitor({ name: MONITOR_NAME, kind: "keywords", query: WORD, url: rx.url }), 303);
    await page.waitForURL(/\/portal\/monitors\/mon_[0-9A-Za-z]+\?done=created$/);
    monitorUrl = page.url().split("?")[0]!;
    firstSecret = await page.inputValue("#monitor-secret");
    assert.match(firstSecret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.equal(await page.locator("h1").textContent(), `Monitor: ${MONITOR_NAME}`, "the name is text, not markup");
    await check("monitor-created");
    await page.reload();
    assert.equal(await page.locator("#monitor-secret").count(), 0, "the secret is shown once");
    assert.match((await page.locator(".notice").textContent())!, /shown once/);

    await page.goto(`${svc.url}/portal/monitors`);
    const row = page.locator("table.monitors tbody tr");
    assert.equal(await row.count(), 1);
    assert.equal(await row.locator("th").textContent(), MONITOR_NAME);
    assert.equal(await row.locator(".monitor-query").textContent(), WORD);
    assert.equal(await row.locator(".monitor-status").textContent(), "Active");
    assert.equal(await row.locator(".monitor-channel").textContent(), `webhook ${rx.url}`);
    assert.equal(await row.locator("td").first().textContent(), "keywords");
    await check("monitors-list");
  });

  test("pause, resume and rotate the secret", async () => {
    await page.goto(monitorUrl);
    await page.getByRole("button", { name: "Pause" }).click();
    await page.waitForURL(/\?done=paused$/);
    assert.equal(await page.locator("dd.monitor-status").textContent(), "Paused");
    await check("monitor-paused");
    await page.goto(`${svc.url}/portal/monitors`);
    assert.equal(await page.locator("td.monitor-status").textContent(), "Paused");

    await page.goto(monitorUrl);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.waitForURL(/\?done=resumed$/);
    assert.equal(await page.locator("dd.monitor-status").textContent(), "Active");

    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.waitForURL(/\?done=rotated$/);
    rotatedSecret = await page.inputValue("#monitor-secret");
    assert.match(rotatedSecret, /^whsec_[0-9A-Za-z]{32}$/);
    assert.notEqual(rotatedSecret, firstSecret);
    assert.match(await page.locator("main").innerText(), /previous secret also signs until/i);
    await check("monitor-rotated");
  });

  test("a post that matches reaches the webhook and is listed as a delivery", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-portal-monitor-"));
    try {
      const file = path.join(dir, "posts.ndjson");
      const post = {
        id: `pm${process.pid}`,
        subreddit: "SaaS",
        title: `Anyone tried ${WORD} for invoicing?`,
        selftext: "Looking for a tool for our small team.",
        author: "user_1",
        score: 3,
        num_comments: 1,
        created_utc: Math.floor(Date.now() / 1000) - 60,
        permalink: `/r/SaaS/comments/pm${process.pid}/x/`,
      };
      writeFileSync(file, `${JSON.stringify(post)}\n`);
      // Written by an ingest beside the running server, as an operator would.
      const ingest = await runIngest([file], {
        ...(process.env as Record<string, string>),
        THREADSIGHT_DATA_DIR: svc.dataDir,
        EMBED_WORKERS: "1",
      });
      assert.equal(ingest.code, 0, ingest.stderr.slice(-2000));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await until(() => rx.receipts.length > 0, "the webhook delivery", 60_000);
    const got = rx.receipts[0]!;
    assert.ok(
      verifySignature(got.signature, got.raw, rotatedSecret, Math.floor(Date.now() / 1000)),
      "signed with the rotated secret",
    );
    assert.match(got.raw, new RegExp(WORD));

    await until(
      async () => {
        await page.goto(monitorUrl);
        return (await page.locator("table.deliveries tbody tr").count()) > 0;
      },
      "the delivery row",
      10_000,
    );
    const row = page.locator("table.deliveries tbody tr").first();
    assert.equal(await row.getAttribute("data-status"), "delivered");
    assert.equal(await row.locator(".attempt-status").textContent(), "Delivered");
    assert.equal(await row.locator(".attempt-code").textContent(), "200");
    await check("monitor-delivery");
  });

  test("create from a search: the explorer's query pre-fills the create form", async () => {
    const query = 'who needs a "CRM" <b>?';
    await page.goto(`${svc.url}/portal/explorer`);
    await page.locator('section[data-operation="leads"][data-ready="true"]').waitFor();
    await page.fill("#leads-query", query);
    await page
      .locator('section[data-operation="leads"]')
      .getByRole("link", { name: "Create a monitor from this query" })
      .click();
    await page.waitForURL(/\/portal\/monitors\?kind=leads&query=/);
    assert.equal(await page.inputValue("#monitor-query"), query);
    assert.equal(await page.inputValue("#monitor-kind"), "leads");
    await check("monitors-from-explorer");
  });

  test("no page failed a check, opened a dialog or leaked the first secret later", () => {
    assert.deepEqual(a11y, []);
    assert.deepEqual(seen.dialogs, []);
    const later = seen.responses.filter((r) => r.body.includes(firstSecret) && !/done=created$/.test(r.url));
    assert.deepEqual(
      later.map((r) => r.url),
      [],
    );
  });
});
