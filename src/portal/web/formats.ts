/**
 * The one way every portal page writes a moment, a day and a count, so a page never mixes an
 * ISO timestamp with "YYYY-MM-DD HH:MM UTC", or a bare count with a comma-grouped one. Times are
 * UTC to the minute (quotas reset on UTC boundaries); counts use grouping commas.
 */

import type { SafeHtml } from "./html.js";
import { html } from "./html.js";

const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "YYYY-MM-DD HH:MM UTC". */
export function dateTimeText(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "YYYY-MM-DD" (the UTC day). */
export function dateText(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** A <time> element showing {@link dateTimeText}, machine-readable in its datetime attribute. */
export function dateTime(d: Date): SafeHtml {
  return html`<time class="nowrap" datetime="${d.toISOString()}">${dateTimeText(d)}</time>`;
}

/** A <time> element showing {@link dateText}. */
export function date(d: Date): SafeHtml {
  return html`<time class="nowrap" datetime="${d.toISOString()}">${dateText(d)}</time>`;
}

/** Comma-grouped ("12,345"); null reads "unlimited" (a plan without a quota). */
export function count(n: number | null): string {
  return n === null ? "unlimited" : NUMBER.format(n);
}
