/**
 * Real-browser plumbing for the portal suites: Debian's Chromium driven by playwright-core
 * (headless, no sandbox, no background networking, a fresh temporary profile per launch),
 * the skip-or-fail rule for a missing browser, screenshots under test-artifacts/portal, and a
 * recorder of every response body a page received (for the "no secret leaks" checks).
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { missingBackend } from "../harness/backend-policy.js";

/** Chromium binary; Debian's package installs it here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Where screenshots go (git-ignored). */
export const ARTIFACTS_DIR = path.join(PACKAGE_ROOT, "test-artifacts/portal");

/** node:test `skip` value: false when Chromium is there; fails when REQUIRE_BROWSER=1 or CI. */
export function browserSkip(): false | string {
  return existsSync(CHROMIUM_PATH)
    ? false
    : missingBackend("browser", `${CHROMIUM_PATH} not found (apt-get install chromium)`);
}

/** Launches headless Chromium. Playwright gives every launch its own new temporary profile. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/** Writes a full-page screenshot to test-artifacts/portal/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

/** One response a page received. */
export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  body: string;
}

/** Records every HTML, JSON and script response of `page`, and every dialog it tried to open. */
export function recordPage(page: Page): { responses: SeenResponse[]; dialogs: string[] } {
  const responses: SeenResponse[] = [];
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("response", (res) => {
    const type = res.headers()["content-type"] ?? "";
    if (!/html|json|javascript/.test(type) || res.status() === 303) return;
    res.text().then(
      (body) => responses.push({ method: res.request().method(), url: res.url(), status: res.status(), body }),
      () => undefined,
    );
  });
  return { responses, dialogs };
}
