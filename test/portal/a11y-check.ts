/**
 * A small accessibility check run inside the page, standing in for axe: every form control has
 * a label, every image and SVG a text alternative, every button and link a name,
 * aria-describedby/-labelledby point at elements that exist, ids are unique, the page has a
 * language and one h1, and visible text has a contrast ratio of at least 4.5:1 (3:1 for large
 * text) against its effective background. The check itself is a11y-check.page.js.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

const SOURCE = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "a11y-check.page.js"), "utf8");

/** Problems found on the page (empty when none). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(SOURCE)) as string[];
}
