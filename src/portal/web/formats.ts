/**
 * The one way every portal page writes a moment, a day and a count, so a page never mixes
 * "2026-01-02T03:04:05.678Z" with "2026-01-02 03:04 UTC" or "4995" with "5,000". Times are UTC to
 * the minute (quotas reset on UTC boundaries); counts use grouping commas.
 */
import { html } from "./html.js";
import type { SafeHtml } from "./html.js";

const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "2026-01-02 03:04 UTC". */
export function dateTimeText(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "2026-01-02" (the UTC day). */
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

/** "4,995"; null reads "unlimited" (a plan without a quota). */
export function count(n: number | null): string {
  return n === null ? "unlimited" : NUMBER.format(n);
}
