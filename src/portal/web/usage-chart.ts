/**
 * The daily usage chart, drawn on the server as inline SVG (no script, no chart library): one bar
 * per UTC day with a title per bar. The SVG is role="img" with a text alternative summarising it,
 * and the same numbers follow as a table for screen readers and anyone who prefers figures.
 */
import { count } from "./formats.js";
import type { SafeHtml } from "./html.js";
import { html } from "./html.js";

const WIDTH = 720;
const HEIGHT = 200;
const PAD_LEFT = 40;
const PAD_BOTTOM = 24;
const PAD_TOP = 12;

function calls(n: number): string {
  return `${count(n)} call${n === 1 ? "" : "s"}`;
}

/** A nice upper bound for the axis: 1, 2, 5 times a power of ten, at least max. */
function axisMax(max: number): number {
  if (max <= 0) return 1;
  const pow = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * pow >= max) return m * pow;
  return 10 * pow;
}

/** The chart plus its table fallback for `daily` (oldest first). */
export function usageChart(daily: readonly { day: string; count: number }[]): SafeHtml {
  const total = daily.reduce((s, d) => s + d.count, 0);
  const peak = daily.reduce((m, d) => Math.max(m, d.count), 0);
  const top = axisMax(peak);
  const plotW = WIDTH - PAD_LEFT;
  const plotH = HEIGHT - PAD_TOP - PAD_BOTTOM;
  const slot = daily.length > 0 ? plotW / daily.length : plotW;
  const barW = Math.max(1, slot * 0.7);
  const first = daily[0]?.day ?? "";
  const last = daily[daily.length - 1]?.day ?? "";
  const summary = `${calls(total)} from ${first} to ${last}; busiest day ${calls(peak)}.`;
  const bars = daily.map((d, i) => {
    const h = (d.count / top) * plotH;
    const x = PAD_LEFT + i * slot + (slot - barW) / 2;
    const y = PAD_TOP + plotH - h;
    return html`<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${d.day}: ${calls(d.count)}</title></rect>`;
  });
  const labelEvery = Math.max(1, Math.ceil(daily.length / 6));
  const labels = daily.map((d, i) =>
    i % labelEvery === 0
      ? html`<text class="axis" x="${(PAD_LEFT + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${d.day.slice(5)}</text>`
      : "",
  );
  const rows = daily.map((d) => html`<tr><th scope="row">${d.day}</th><td>${count(d.count)}</td></tr>`);
  return html`<figure class="chart">
<svg role="img" aria-labelledby="chart-title chart-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="xMinYMin meet" focusable="false">
<title id="chart-title">Calls per day</title>
<desc id="chart-desc">${summary}</desc>
<line class="grid" x1="${PAD_LEFT}" y1="${PAD_TOP}" x2="${WIDTH}" y2="${PAD_TOP}"></line>
<line class="grid" x1="${PAD_LEFT}" y1="${PAD_TOP + plotH}" x2="${WIDTH}" y2="${PAD_TOP + plotH}"></line>
<text class="axis" x="${PAD_LEFT - 6}" y="${PAD_TOP + 4}" text-anchor="end">${count(top)}</text>
<text class="axis" x="${PAD_LEFT - 6}" y="${PAD_TOP + plotH + 4}" text-anchor="end">0</text>
${bars}
${labels}
</svg>
<figcaption>Calls per UTC day over the last ${daily.length} days. ${summary}</figcaption>
</figure>
<details class="chart-table">
<summary>Show the numbers as a table</summary>
<table>
<caption>Calls per UTC day</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Calls</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</details>`;
}
