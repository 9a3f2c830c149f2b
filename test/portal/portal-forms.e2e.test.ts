/**
 * The portal's forms and explorer in a real Chromium against a real service: sign-up shows every
 * field error at once; sign in; create, rotate and revoke a key through post/redirect/get with a
 * reload after each (no duplicate key, the one-time secret shown exactly once and never in a
 * URL, rotate and revoke only after a confirmation page); explorer calls that are counted and
 * ones refused before they are spent; trends charted; every page at 360, 768 and 1280 px
 * without horizontal overflow; /favicon.ico served.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { corporaSkip, rebuildTopics, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import { browserSkip, launchBrowser, screenshot } from "./browser.js";

const skip = browserSkip() || corporaSkip();
const SAMPLE = [{ file: "reddit_top2013/raw_csv/startups.csv", limit: 100 }];
const PASSWORD = "correct horse battery staple";
const WIDTHS = [360, 768, 1280] as const;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

describe("portal forms and explorer in Chromium", { skip }, () => {
  let svc: RunningService;
  let dataDir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = `forms-${process.pid}@example.com`;
  let key = "";
  /** Every URL the browser asked for (a secret must never be in one). */
  const urls: string[] = [];
  /** Responses that carried a key secret: URL + method. */
  const secretPages: string[] = [];

  async function keyRows(): Promise<number> {
    return page.locator("table.keys tbody tr").count();
  }

  async function usedCount(): Promise<number> {
    await page.goto(`${svc.url}/portal/dashboard`);
    return Number((await page.locator("#usage-used").textContent())!.replace(/,/g, ""));
  }

  async function explorerSection(operation: string) {
    if (!page.url().endsWith("/portal/explorer")) await page.goto(`${svc.url}/portal/explorer`);
    const section = page.locator(`section[data-operation="${operation}"][data-ready="true"]`);
    await section.waitFor();
    return section;
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-forms-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, SAMPLE);
    // Topics, so that the trends call has something to chart.
    await rebuildTopics({ THREADSIGHT_DATA_DIR: dataDir });
    svc = await startService({ dataDir });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on("request", (r) => urls.push(r.url()));
    page.on("response", (res) => {
      if (!/html/.test(res.headers()["content-type"] ?? "")) return;
      res.text().then(
        (body) => {
          if (/ts_live_[0-9A-Za-z]+_[0-9A-Za-z]{32}/.test(body))
            secretPages.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
        },
        () => undefined,
      );
    });
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  test("sign-up shows every field error at once, then signs up", async () => {
    await page.goto(`${svc.url}/portal/sign-up`);
    await page.fill("#name", "   ");
    await page.fill("#email", "not-an-email");
    await page.fill("#password", "short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.locator(".error-summary").waitFor();
    assert.equal(await page.locator(".field-error").count(), 3, await page.locator("main").innerText());
    assert.match((await page.locator("#name-error").textContent())!, /name is required/);
    assert.match((await page.locator("#email-error").textContent())!, /email must look like/);
    assert.match(
      (await page.locator("#password-error").textContent())!,
      /password must be 10 to 200 characters, got 5/,
    );
    assert.match((await page.locator(".error-summary").textContent())!, /3 problems/);
    assert.equal(await page.inputValue("#email"), "not-an-email", "values are kept");
    await screenshot(page, "forms-sign-up-errors");

    await page.fill("#name", "Forms Tester");
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    // Sign-up starts no session (the address is confirmed by mail): sign in.
    await page.waitForURL(/\/portal\/sign-up\/sent$/);
    await page.goto(`${svc.url}/portal/sign-in`);
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/portal\/dashboard$/);
    // Paid plans need payment; with no billing provider the operator grants Starter.
    const account = await svc.service.accounts.findAccountByEmail(email);
    await svc.service.keys.setAccountPlan(account!.id, "starter");
  });

  test("sign out, then sign in: blank fields are both reported, then it works", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/portal\/sign-in$/);
    await page.getByRole("button", { name: "Sign in" }).click();
    const errors = await page.locator(".field-error").allTextContents();
    assert.deepEqual(errors, ["email is required", "password is required"]);
    await page.fill("#email", email);
    await page.fill("#password", PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/portal\/dashboard$/);
  });

  test("create: 303 to GET /keys, the secret once; a reload makes no second key and shows no secret", async () => {
    await page.goto(`${svc.url}/portal/keys`);
    assert.equal(await keyRows(), 0);
    await page.fill("#key-name", "production");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(/\/portal\/keys\?done=created$/);
    key = await page.locator("#new-key-secret").inputValue();
    assert.match(key, /^ts_live_[0-9A-Za-z]+_[0-9A-Za-z]{32}$/);
    assert.equal(await keyRows(), 1);

    await page.reload();
    assert.equal(page.url(), `${svc.url}/portal/keys?done=created`);
    assert.equal(await keyRows(), 1, "the reload repeated the GET, not the POST");
    assert.equal(await page.locator("#new-key-secret").count(), 0, "the flash is single-use");
    assert.ok(!(await page.content()).includes(key));
    assert.match((await page.locator(".notice").textContent())!, /shown once/);
    assert.equal((await svc.service.keys.listKeys()).filter((k) => k.name === "production").length, 1);
  });

  test("the flash belongs to its session: another browser's session never sees it", async () => {
    const other = await browser.newContext();
    const p2 = await other.newPage();
    await p2.goto(`${svc.url}/portal/keys`);
    assert.match(p2.url(), /\/portal\/sign-in/);
    await other.close();
  });

  test("rotate: a confirmation page first; then the new secret once; a reload keeps it from being lost twice", async () => {
    await page.goto(`${svc.url}/portal/keys`);
    await page.getByRole("link", { name: "Rotate key production" }).click();
    await page.waitForURL(/\/portal\/keys\/[^/]+\/rotate$/);
    assert.equal(await keyRows(), 0, "a confirmation page, not the keys list");
    await screenshot(page, "forms-rotate-confirm");
    // Cancel changes nothing.
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(/\/portal\/keys$/);
    assert.equal((await svc.service.keys.listKeys()).filter((k) => k.rotatedTo !== null).length, 0);

    await page.getByRole("link", { name: "Rotate key production" }).click();
    await page.getByRole("button", { name: "Yes, rotate this key" }).click();
    await page.waitForURL(/\/portal\/keys\?done=rotated$/);
    const replacement = await page.locator("#new-key-secret").inputValue();
    assert.notEqual(replacement, key);
    assert.equal(await keyRows(), 2);

    await page.reload();
    assert.equal(await keyRows(), 2, "no second rotation");
    assert.equal(await page.locator("#new-key-secret").count(), 0);
    assert.doesNotMatch(await page.locator("main").innerText(), /already rotated|409/);

    // Sending the confirmation again (back button + resubmit) rotates nothing more.
    await page.goBack();
    await page.goBack();
    if (await page.getByRole("button", { name: "Yes, rotate this key" }).count()) {
      await page.getByRole("button", { name: "Yes, rotate this key" }).click();
      await page.waitForURL(/\/portal\/keys\?done=(already-rotated|rotated)$/);
    }
    assert.equal((await svc.service.keys.listKeys()).filter((k) => k.rotatedTo !== null).length, 1);
    key = replacement;
  });

  test("revoke: a confirmation page first, then a redirect; a reload revokes nothing more", async () => {
    await page.goto(`${svc.url}/portal/keys`);
    await page.fill("#key-name", "throwaway");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL(/done=created$/);
    await page.getByRole("link", { name: "Revoke key throwaway" }).click();
    await page.waitForURL(/\/revoke$/);
    assert.match(await page.locator("main").innerText(), /cannot be undone/);
    await page.getByRole("button", { name: "Yes, revoke this key" }).click();
    await page.waitForURL(/\/portal\/keys\?done=revoked$/);
    const row = page.locator("table.keys tbody tr").filter({ hasText: "throwaway" });
    assert.equal(await row.locator(".key-status").textContent(), "Revoked");
    await page.reload();
    assert.equal(await row.locator(".key-status").textContent(), "Revoked");
    assert.equal(await keyRows(), 3);
  });

  test("a secret appeared only on the GET after each redirect, never in a URL", () => {
    assert.deepEqual(secretPages, ["GET /portal/keys", "GET /portal/keys", "GET /portal/keys"]);
    assert.ok(!urls.some((u) => /ts_live_/.test(u)), "no URL carries a key");
  });

  test("explorer: rule-breaking forms are refused before they are spent; a good call is counted once", async () => {
    const before = await usedCount();
    await page.goto(`${svc.url}/portal/explorer`);
    const semantic = await explorerSection("semantic_search");
    await page.fill("#explorer-key", key);
    // Blank query.
    await page.fill("#semantic_search-query", "   ");
    await semantic.getByRole("button", { name: "Try it" }).click();
    assert.match((await page.locator("#semantic_search-query-error").textContent())!, /query is required/);
    // Limit out of range.
    await page.fill("#semantic_search-query", "pricing");
    await page.fill("#semantic_search-limit", "0");
    await semantic.getByRole("button", { name: "Try it" }).click();
    assert.match(
      (await page.locator("#semantic_search-limit-error").textContent())!,
      /limit must be between 1 and 100, got 0/,
    );
    // Bad dates.
    const vector = await explorerSection("vector_search");
    await page.fill("#vector_search-query", "pricing");
    await page.fill("#vector_search-start_date", "2024-02-30");
    await page.fill("#vector_search-end_date", "01/31/2024");
    await vector.getByRole("button", { name: "Try it" }).click();
    assert.match((await page.locator("#vector_search-start_date-error").textContent())!, /real calendar day/);
    assert.match((await page.locator("#vector_search-end_date-error").textContent())!, /YYYY-MM-DD/);
    await page.fill("#vector_search-start_date", "2024-03-01");
    await page.fill("#vector_search-end_date", "2024-01-31");
    await vector.getByRole("button", { name: "Try it" }).click();
    assert.match((await page.locator("#vector_search-start_date-error").textContent())!, /on or before end_date/);
    assert.equal(await semantic.getAttribute("data-refused"), "2");
    assert.equal(await vector.getAttribute("data-refused"), "2");
    assert.equal(await page.locator(".response-status[data-status]").count(), 0, "nothing was sent");
    assert.equal(await page.getAttribute("#vector_search-start_date", "type"), "text", "no locale-ordered date picker");
    assert.equal(await page.getAttribute("#vector_search-start_date", "placeholder"), "YYYY-MM-DD");
    await sleep(500);
    assert.equal(await usedCount(), before, "refused forms cost nothing");

    // An example, sent: counted exactly once, answered as cards with the summary first.
    await explorerSection("semantic_search");
    await page.fill("#explorer-key", key);
    await page.locator('section[data-operation="semantic_search"] button.example').first().click();
    assert.equal(await page.inputValue("#semantic_search-query"), "how do I find my first customers");
    const section = page.locator('section[data-operation="semantic_search"]');
    await section.getByRole("button", { name: "Try it" }).click();
    await section.locator(".response-status[data-status]").waitFor();
    assert.equal(await section.locator(".response-status").getAttribute("data-status"), "200");
    // The summary comes first, above the result cards.
    const summaryBox = await section.locator(".response-summary .summary-card").boundingBox();
    const firstCard = await section.locator(".result-card").first().boundingBox();
    assert.ok(summaryBox !== null && firstCard !== null && summaryBox.y < firstCard.y, "summary above the results");
    assert.match((await section.locator(".summary-line").textContent())!, /\d results? · .*ms on the server/);
    const cards = section.locator(".result-card");
    assert.ok((await cards.count()) > 0 && (await cards.count()) <= 5);
    assert.match((await cards.first().locator("h4 a").getAttribute("href"))!, /^https?:\/\//);
    assert.ok(await cards.first().locator("dt", { hasText: "relevance" }).count());
    assert.equal(await section.locator("details.raw").getAttribute("open"), null, "raw JSON is folded away");
    await section.locator("details.raw summary").click();
    assert.equal(JSON.parse((await section.locator(".response-body").textContent())!).success, true);
    await screenshot(page, "forms-explorer-semantic");

    let after = await usedCount();
    for (let i = 0; i < 40 && after === before; i++) {
      await sleep(250);
      after = await usedCount();
    }
    assert.equal(after, before + 1);
  });

  test("explorer: trends charted as post counts per topic with Chart.js, served by us", async () => {
    const section = await explorerSection("trends");
    await page.fill("#explorer-key", key);
    assert.match((await page.locator("#trends-start_date-hint").textContent())!, /29 days before end_date/);
    await section.getByRole("button", { name: "Try it" }).click();
    await section.locator(".response-status[data-status]").waitFor();
    assert.equal(await section.locator(".response-status").getAttribute("data-status"), "200");
    const trends = JSON.parse((await section.locator(".response-body").textContent())!).data.trends as {
      topic: string;
      post_count: number;
    }[];
    assert.ok(trends.length > 0, "the seeded sample has topics");
    assert.equal(await section.getAttribute("data-chart-bars"), String(trends.length));
    assert.equal(await section.locator(".response-chart").isVisible(), true);
    const drawn = await section.locator(".response-chart canvas").evaluate((c) => {
      const chart = (
        globalThis as unknown as {
          Chart: { getChart(c: unknown): { data: { labels: string[]; datasets: { data: number[] }[] } } };
        }
      ).Chart.getChart(c);
      return { labels: chart.data.labels, counts: chart.data.datasets[0]!.data };
    });
    assert.deepEqual(drawn, { labels: trends.map((t) => t.topic), counts: trends.map((t) => t.post_count) });
    const asset = await fetch(`${svc.url}/portal/assets/chart.umd.min.js`);
    assert.equal(asset.status, 200);
    assert.match(await asset.text(), /Chart\.js v4/);
    await screenshot(page, "forms-explorer-trends");
  });

  test("explorer: aggregate with filters charts the weekly histogram the API returned; a refused call costs nothing", async () => {
    const before = await usedCount();
    const section = await explorerSection("aggregate");
    await page.fill("#explorer-key", key);
    // The search forms gain the filter and the sort too.
    assert.equal(await page.locator("#semantic_search-filter-min_upvotes").count(), 1);
    assert.ok((await page.locator("#semantic_search-sort option").count()) >= 6, "the sort orders");
    // Inverted dates and an unknown sentiment are refused in the page.
    // A sample post's own title (2013-06-14): the set cannot be empty.
    await page.fill("#aggregate-query", "If your website requires this and doesn't let me in without it");
    await page.selectOption("#aggregate-interval", "week");
    await page.fill("#aggregate-filter-start_date", "2013-12-31");
    await page.fill("#aggregate-filter-end_date", "2013-01-01");
    await page.fill("#aggregate-filter-sentiments", "positive, angry");
    await section.getByRole("button", { name: "Try it" }).click();
    assert.match(
      (await page.locator("#aggregate-filter-start_date-error").textContent())!,
      /filter.start_date must be on or before filter.end_date/,
    );
    assert.match((await page.locator("#aggregate-filter-sentiments-error").textContent())!, /got "angry"/);
    assert.equal(await section.getAttribute("data-refused"), "1");
    assert.equal(await section.locator(".response-status[data-status]").count(), 0, "nothing was sent");
    // Fixed, with more filters: sent once, and the chart shows every bucket of the answer.
    await page.fill("#aggregate-filter-start_date", "2013-01-01");
    await page.fill("#aggregate-filter-end_date", "2013-12-31");
    await page.fill("#aggregate-filter-sentiments", "positive, neutral, negative");
    await page.fill("#aggregate-filter-sources", "reddit");
    await page.fill("#aggregate-filter-exclude_subforums", "no-such-subforum");
    await page.fill("#aggregate-filter-min_comments", "0");
    await page.fill("#aggregate-group_by", "sentiment");
    await section.getByRole("button", { name: "Try it" }).click();
    await section.locator(".response-status[data-status]").waitFor();
    assert.equal(await section.locator(".response-status").getAttribute("data-status"), "200");
    // The body as the curl command shows it: one shell-quoted argument ('\'' is a quote).
    const quoted = (await section.locator(".cmd-curl").textContent())!.split(" -d ").at(-1)!.trim();
    const sent = JSON.parse(quoted.slice(1, -1).replaceAll("'\\''", "'"));
    assert.deepEqual(sent.filter.sources, ["reddit"]);
    assert.equal(sent.filter.min_comments, 0);
    const data = JSON.parse((await section.locator(".response-body").textContent())!).data as {
      total: number;
      histogram: { start: string; post_count: number }[];
    };
    // 2013 in ISO weeks: from Monday 2012-12-31 to Monday 2013-12-30.
    assert.equal(data.histogram.length, 53);
    assert.equal(data.histogram[0]!.start, "2012-12-31");
    assert.ok(data.total > 0, "the query matches some of the sample");
    assert.equal(await section.locator(".response-chart").isVisible(), true);
    const drawn = await section.locator(".response-chart canvas").evaluate((c) => {
      const chart = (
        globalThis as unknown as {
          Chart: {
            getChart(c: unknown): {
              config: { type: string };
              data: { labels: string[]; datasets: { data: number[] }[] };
            };
          };
        }
      ).Chart.getChart(c);
      return { type: chart.config.type, labels: chart.data.labels, counts: chart.data.datasets[0]!.data };
    });
    assert.deepEqual(drawn, {
      type: "line",
      labels: data.histogram.map((b) => b.start),
      counts: data.histogram.map((b) => b.post_count),
    });
    assert.ok(await section.locator(".result-card h4", { hasText: "sentiment" }).count());
    await screenshot(page, "forms-explorer-aggregate");
    let after = await usedCount();
    for (let i = 0; i < 40 && after === before; i++) {
      await sleep(250);
      after = await usedCount();
    }
    assert.equal(after, before + 1, "only the sent call was counted");
  });

  test("every page fits 360, 768 and 1280 px with no horizontal overflow; dates do not wrap", async () => {
    const pages = [
      "dashboard",
      "plans",
      "keys",
      "explorer",
      `keys/${(await svc.service.keys.listKeys()).find((k) => k.name === "production" && k.rotatedTo === null)!.id}/rotate`,
    ];
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const p of pages) {
        await page.goto(`${svc.url}/portal/${p}`);
        if (p === "explorer") await page.locator('section[data-ready="true"]').first().waitFor();
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        if (scrollWidth > innerWidth)
          problems.push(`${p} at ${width}px: scrollWidth ${scrollWidth} > innerWidth ${innerWidth}`);
        // Tables must fit their card too, not scroll inside it.
        const wideTables = await page
          .locator("main .table-scroll")
          .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).length);
        if (wideTables > 0) problems.push(`${p} at ${width}px: ${wideTables} table(s) wider than their card`);
        // A <time> on one line is as tall as one line of its text.
        const wrapped = await page
          .locator("main time")
          .evaluateAll((els) => els.filter((e) => e.getClientRects().length > 1).map((e) => e.textContent));
        if (wrapped.length > 0) problems.push(`${p} at ${width}px: wrapped dates ${wrapped.join(", ")}`);
        await screenshot(page, `forms-${p.replace(/\//g, "-").replace(/-[^-]+-rotate$/, "-rotate")}-${width}`);
      }
    }
    // At 1280 px the row's buttons sit side by side.
    await page.goto(`${svc.url}/portal/keys`);
    const buttons = page.locator("table.keys tbody tr").first().locator("div.actions a");
    if ((await buttons.count()) === 2) {
      const [a, b] = [await buttons.nth(0).boundingBox(), await buttons.nth(1).boundingBox()];
      if (Math.abs(a!.y - b!.y) > 1) problems.push(`keys at 1280px: action buttons stacked (${a!.y} vs ${b!.y})`);
    }
    assert.deepEqual(problems, []);
  });

  test("/favicon.ico is served (and linked from every page)", async () => {
    const res = await fetch(`${svc.url}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/x-icon");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], "an ICO header");
    await page.goto(`${svc.url}/portal/sign-in`);
    assert.equal(await page.locator('link[rel="icon"][href="/favicon.ico"]').count(), 1);
  });
});
