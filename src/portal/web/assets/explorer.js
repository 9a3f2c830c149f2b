// The API explorer: builds one form per operation from the OpenAPI document, checks the documented
// rules (required, length, bounds, dates) before a call is spent, sends the real API call with
// the key typed (or handed over from the keys page) as a Bearer token, and renders the answer as
// cards (summary first, then each result), a chart of post counts for trends and of posts over
// time for aggregates, the raw JSON and
// headers one click away, and equivalent curl and buf curl commands. Everything the server
// returns is written with textContent, never parsed as HTML.
const OPENAPI_URL = "/api/v1/openapi.json";
const EXPLORER_KEY = "threadsight.explorer-key";
const KEY_PLACEHOLDER = "$THREADSIGHT_API_KEY";
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
const EARLIEST_DATE = "1970-01-01";
const LATEST_DATE = "2100-12-31";
const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

const keyInput = /** @type {HTMLInputElement} */ (document.getElementById("explorer-key"));
const keyError = /** @type {HTMLElement} */ (document.getElementById("explorer-error"));

function storedKey() {
  try {
    return sessionStorage.getItem(EXPLORER_KEY) ?? "";
  } catch {
    return "";
  }
}

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function resolve(doc, schema) {
  let s = schema;
  for (let i = 0; i < 10 && s && typeof s.$ref === "string"; i++) {
    const path = s.$ref.replace(/^#\//, "").split("/");
    s = path.reduce((o, p) => (o ? o[p] : undefined), doc);
  }
  return s ?? {};
}

// A real calendar day in the accepted range (February 30th is not one).
function dateProblem(name, text) {
  if (!DATE_SHAPE.test(text)) return `${name} must be a date written YYYY-MM-DD, got "${text}"`;
  const d = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text)
    return `${name} must be a real calendar day, got ${text}`;
  if (text < EARLIEST_DATE || text > LATEST_DATE)
    return `${name} must be between ${EARLIEST_DATE} and ${LATEST_DATE}, got ${text}`;
  return undefined;
}

// One labelled control per schema property; it knows how to read, set and check its value.
function control(opId, name, prop, required) {
  // "filter.start_date" -> "<op>-filter-start_date": ids stay usable as CSS selectors.
  const id = `${opId}-${name.replaceAll(".", "-")}`;
  const wrap = el("div", { class: "field" });
  wrap.append(el("label", { for: id }, name + (required ? " (required)" : "")));
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const hint = el("p", { class: "hint", id: hintId }, prop.description ?? "");
  const error = el("p", { class: "field-error", id: errorId, hidden: true });
  let input;
  let read;
  let check = () => undefined;
  if (Array.isArray(prop.enum)) {
    input = el("select", { id, name });
    if (!required) input.append(el("option", { value: "" }, "(default)"));
    for (const v of prop.enum) input.append(el("option", { value: v }, v));
    read = () => input.value || undefined;
  } else if (prop.type === "integer" || prop.type === "number") {
    input = el("input", {
      id,
      name,
      type: "text",
      inputmode: "numeric",
      placeholder: prop.default !== undefined ? `default ${prop.default}` : undefined,
      spellcheck: "false",
    });
    read = () => (input.value.trim() === "" ? undefined : Number(input.value.trim()));
    check = () => {
      const text = input.value.trim();
      if (text === "") return required ? `${name} is required` : undefined;
      const v = Number(text);
      if (!Number.isFinite(v) || (prop.type === "integer" && !Number.isInteger(v)))
        return `${name} must be ${prop.type === "integer" ? "a whole number" : "a number"}, got "${text}"`;
      if ((prop.minimum !== undefined && v < prop.minimum) || (prop.maximum !== undefined && v > prop.maximum))
        return `${name} must be between ${prop.minimum} and ${prop.maximum}, got ${text}`;
      return undefined;
    };
  } else if (prop.type === "boolean") {
    input = el("input", { id, name, type: "checkbox" });
    read = () => (input.checked ? true : undefined);
  } else if (prop.type === "array") {
    input = el("input", { id, name, type: "text", placeholder: "comma-separated", spellcheck: "false" });
    const allowed = resolveItems(prop).enum;
    const among = Array.isArray(allowed) ? ` One or more of: ${allowed.join(", ")}.` : "";
    hint.textContent = `${prop.description ?? ""}${among} Separate values with commas.`.trim();
    read = () => {
      const items = input.value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      return items.length > 0 ? items : undefined;
    };
    check = () => {
      const items = read() ?? [];
      if (prop.maxItems !== undefined && items.length > prop.maxItems)
        return `${name} must list at most ${prop.maxItems} values, got ${items.length}`;
      const allowed = resolveItems(prop).enum;
      const odd = Array.isArray(allowed) ? items.find((s) => !allowed.includes(s)) : undefined;
      if (odd !== undefined) return `${name} values must be among ${allowed.join(", ")}, got "${odd}"`;
      const max = resolveItems(prop).maxLength;
      const long = max === undefined ? undefined : items.find((s) => [...s].length > max);
      return long === undefined ? undefined : `each of ${name} must be at most ${max} characters`;
    };
  } else if (prop.format === "date") {
    // A text field, not type=date: the browser's date picker shows the locale's order
    // (mm/dd/yyyy), while the API and its documentation speak YYYY-MM-DD.
    input = el("input", {
      id,
      name,
      type: "text",
      inputmode: "numeric",
      placeholder: "YYYY-MM-DD",
      pattern: "\\d{4}-\\d{2}-\\d{2}",
      maxlength: 10,
      spellcheck: "false",
      autocomplete: "off",
    });
    read = () => (input.value.trim() === "" ? undefined : input.value.trim());
    check = () => {
      const text = input.value.trim();
      if (text === "") return required ? `${name} is required` : undefined;
      return dateProblem(name, text);
    };
  } else {
    input = el("input", { id, name, type: "text", maxlength: prop.maxLength, required, spellcheck: "false" });
    read = () => (input.value === "" ? undefined : input.value);
    check = () => {
      const text = input.value;
      if (text.trim() === "") return required || text !== "" ? `${name} is required and must not be blank` : undefined;
      if (prop.maxLength !== undefined && [...text.trim()].length > prop.maxLength)
        return `${name} must be at most ${prop.maxLength} characters, got ${[...text.trim()].length}`;
      return undefined;
    };
  }
  input.setAttribute("aria-describedby", `${hintId} ${errorId}`);
  wrap.append(hint, input, error);
  const set = (value) => {
    if (input.type === "checkbox") input.checked = value === true;
    else input.value = value === undefined ? "" : Array.isArray(value) ? value.join(", ") : String(value);
  };
  const show = (message) => {
    error.textContent = message ?? "";
    error.hidden = message === undefined;
    wrap.classList.toggle("has-error", message !== undefined);
    if (message === undefined) input.removeAttribute("aria-invalid");
    else input.setAttribute("aria-invalid", "true");
  };
  return { wrap, name, input, read, set, check, show };
}

function resolveItems(prop) {
  return prop.items ?? {};
}

// Every rule broken by the form, field by field, plus the date order; empty when it may be sent.
function problems(controls) {
  const found = [];
  for (const c of controls) {
    const message = c.check();
    c.show(message);
    if (message !== undefined) found.push({ control: c, message });
  }
  for (const prefix of ["", "filter."]) {
    const start = controls.find((c) => c.name === `${prefix}start_date`);
    const end = controls.find((c) => c.name === `${prefix}end_date`);
    const s = start?.read();
    const e = end?.read();
    if (s && e && !found.some((p) => p.control === start || p.control === end) && s > e) {
      const message = `${prefix}start_date must be on or before ${prefix}end_date, got ${s} > ${e}`;
      start.show(message);
      found.push({ control: start, message });
    }
  }
  return found;
}

function shellQuote(s) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function commands(section, json) {
  const origin = location.origin;
  const curl = [
    `curl -sS -X POST ${shellQuote(origin + section.dataset.restPath)} \\`,
    // Double quotes so the shell expands the key from the environment.
    `  -H "Authorization: Bearer ${KEY_PLACEHOLDER}" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(json)}`,
  ].join("\n");
  const plain = location.protocol === "http:";
  const buf = [
    `buf curl --protocol grpc${plain ? " --http2-prior-knowledge" : ""} \\`,
    `  -H "Authorization: Bearer ${KEY_PLACEHOLDER}" \\`,
    `  -d ${shellQuote(json)} \\`,
    `  ${shellQuote(origin + section.dataset.grpcPath)}`,
  ].join("\n");
  section.querySelector(".cmd-curl").textContent = curl;
  section.querySelector(".cmd-buf").textContent = buf;
  section.querySelector(".commands").hidden = false;
}

function fmt(v) {
  if (typeof v === "number") return Number.isInteger(v) ? NUMBER.format(v) : v.toFixed(3);
  if (Array.isArray(v))
    return v
      .map((x) => (typeof x === "object" && x !== null ? (x.title ?? x.id ?? JSON.stringify(x)) : String(x)))
      .join(", ");
  if (typeof v === "object" && v !== null) return JSON.stringify(v);
  return String(v);
}

// An ISO timestamp as "YYYY-MM-DD HH:MM UTC", the portal's one date-time format.
function when(v) {
  const d = new Date(String(v));
  return Number.isNaN(d.getTime()) ? String(v) : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function card(title, url, fields) {
  const article = el("article", { class: "result-card" });
  const h = el("h4");
  if (typeof url === "string" && /^https?:\/\//.test(url))
    h.append(el("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, title));
  else h.textContent = title;
  const dl = el("dl", { class: "result-fields" });
  for (const [k, v] of fields) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0)) continue;
    const div = el("div");
    div.append(el("dt", {}, k), el("dd", {}, k === "created" ? when(v) : fmt(v)));
    dl.append(div);
  }
  article.append(h, dl);
  return article;
}

// Result cards in the response's own field order, minus the ones the card shows elsewhere.
function resultCards(items, titleOf) {
  return items.map((r) => {
    const fields = Object.entries(r).filter(([k]) => !["title", "url", "topic", "sample_posts", "content"].includes(k));
    const c = card(titleOf(r), r.url, fields);
    // The post's text reads as a paragraph under the title, not squeezed into a grid cell.
    if (typeof r.content === "string" && r.content !== "") {
      const text = [...r.content];
      c.querySelector("h4").after(
        el("p", { class: "result-content" }, text.length > 400 ? `${text.slice(0, 400).join("")}…` : r.content),
      );
    }
    if (Array.isArray(r.sample_posts) && r.sample_posts.length > 0) {
      const ul = el("ul", { class: "samples" });
      for (const p of r.sample_posts) {
        const li = el("li");
        if (typeof p.url === "string" && /^https?:\/\//.test(p.url))
          li.append(el("a", { href: p.url, rel: "noopener noreferrer", target: "_blank" }, p.title ?? p.id));
        else li.textContent = p.title ?? p.id;
        ul.append(li);
      }
      c.append(el("p", { class: "hint" }, "Sample posts"), ul);
    }
    return c;
  });
}

function summaryCard(op, data) {
  const box = el("div", { class: "summary-card" });
  const lines = [];
  if (typeof data.ai_summary === "string" && data.ai_summary !== "")
    box.append(el("p", { class: "ai-summary" }, data.ai_summary));
  if (op === "aggregate") {
    lines.push(`${NUMBER.format(data.total ?? 0)} matching post${data.total === 1 ? "" : "s"}`);
    if (data.min_similarity) lines.push(`query similarity at least ${data.min_similarity}`);
    if (Array.isArray(data.histogram) && data.histogram.length > 0)
      lines.push(`${NUMBER.format(data.histogram.length)} ${data.interval} buckets`);
  } else {
    const count = Array.isArray(data.results)
      ? data.results.length
      : Array.isArray(data.trends)
        ? data.trends.length
        : 0;
    lines.push(`${NUMBER.format(count)} ${op === "trends" ? "topic" : "result"}${count === 1 ? "" : "s"}`);
    if (typeof data.total === "number" && data.total !== count) lines.push(`${NUMBER.format(data.total)} in all`);
  }
  if (data.date_range) lines.push(`${data.date_range.start} to ${data.date_range.end} (UTC days)`);
  if (typeof data.processing_time_ms === "number")
    lines.push(`${NUMBER.format(data.processing_time_ms)} ms on the server`);
  if (data.next_page_token) lines.push("more results: send next_page_token as page_token");
  box.append(el("p", { class: "summary-line" }, lines.join(" · ")));
  return box;
}

const charts = new Map();

function trendsChart(section, trends) {
  const holder = section.querySelector(".response-chart");
  const canvas = holder.querySelector("canvas");
  charts.get(section)?.destroy();
  charts.delete(section);
  const Chart = globalThis.Chart;
  if (trends.length === 0 || typeof Chart !== "function") {
    holder.hidden = true;
    return;
  }
  holder.hidden = false;
  canvas.setAttribute("aria-label", `Posts per topic: ${trends.map((t) => `${t.topic} ${t.post_count}`).join(", ")}`);
  const chart = new Chart(canvas, {
    type: "bar",
    data: {
      labels: trends.map((t) => t.topic),
      datasets: [{ label: "Posts in the window", data: trends.map((t) => t.post_count), backgroundColor: "#0a55c2" }],
    },
    options: {
      indexAxis: "y",
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { display: false }, title: { display: true, text: "Posts per topic" } },
      scales: { x: { beginAtZero: true, ticks: { precision: 0, callback: (v) => NUMBER.format(v) } } },
    },
  });
  holder.style.height = `${Math.max(160, 28 * trends.length + 60)}px`;
  chart.resize();
  charts.set(section, chart);
  section.dataset.chartBars = String(trends.length);
}

function render(section, status, parsed) {
  const cards = section.querySelector(".response-cards");
  const summary = section.querySelector(".response-summary");
  cards.replaceChildren();
  summary.replaceChildren();
  section.querySelector(".response-chart").hidden = true;
  const op = section.dataset.operation;
  if (parsed === undefined) return;
  if (parsed.success === false && parsed.error) {
    const e = parsed.error;
    const box = el("div", { class: "alert error-card" });
    box.append(
      el("p", {}, e.message ?? "The call failed."),
      el("p", { class: "hint" }, `${status} · ${e.code ?? ""} · ${e.reason ?? ""}`),
    );
    summary.append(box);
    return;
  }
  const data = parsed.data ?? {};
  summary.append(summaryCard(op, data));
  if (Array.isArray(data.trends)) {
    cards.append(...resultCards(data.trends, (t) => t.topic ?? t.id));
    trendsChart(section, data.trends);
  } else if (Array.isArray(data.results)) {
    cards.append(...resultCards(data.results, (r) => r.title || r.id));
  } else if (Array.isArray(data.histogram) && Array.isArray(data.groups)) {
    cards.append(...groupCards(data.groups));
    histogramChart(section, data.histogram);
  }
}

// One card per counted field: its top values, then the posts outside them.
function groupCards(groups) {
  return groups.map((g) =>
    card(g.field, undefined, [...g.values.map((v) => [v.value, v.count]), ["(all others)", g.other_count]]),
  );
}

// The "over time" chart: posts per bucket, every bucket the API returned (empty ones included).
function histogramChart(section, buckets) {
  const holder = section.querySelector(".response-chart");
  const canvas = holder.querySelector("canvas");
  charts.get(section)?.destroy();
  charts.delete(section);
  const Chart = globalThis.Chart;
  if (buckets.length === 0 || typeof Chart !== "function") {
    holder.hidden = true;
    return;
  }
  holder.hidden = false;
  canvas.setAttribute("aria-label", `Posts over time: ${buckets.map((b) => `${b.start} ${b.post_count}`).join(", ")}`);
  const chart = new Chart(canvas, {
    type: "line",
    data: {
      labels: buckets.map((b) => b.start),
      datasets: [
        {
          label: "Posts",
          data: buckets.map((b) => b.post_count),
          borderColor: "#0a55c2",
          backgroundColor: "#0a55c2",
          pointRadius: buckets.length > 60 ? 0 : 3,
        },
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { display: false }, title: { display: true, text: "Posts over time" } },
      scales: { y: { beginAtZero: true, ticks: { precision: 0, callback: (v) => NUMBER.format(v) } } },
    },
  });
  holder.style.height = "260px";
  chart.resize();
  charts.set(section, chart);
  section.dataset.chartBuckets = buckets.map((b) => `${b.start}:${b.post_count}`).join(",");
}

async function send(section, controls) {
  const refusal = section.querySelector(".form-check");
  const found = problems(controls);
  const key = keyInput.value.trim();
  if (key === "") {
    keyError.textContent = "Enter an API key first (create one on the API keys page).";
    keyError.hidden = false;
    keyInput.setAttribute("aria-invalid", "true");
    keyInput.setAttribute("aria-describedby", "explorer-key-hint explorer-error");
  } else {
    keyError.hidden = true;
    keyInput.removeAttribute("aria-invalid");
  }
  if (found.length > 0 || key === "") {
    // Nothing is sent, so no quota point is spent on a call the server would refuse.
    refusal.textContent =
      found.length > 0
        ? `Not sent (no call spent): ${found.map((p) => p.message).join("; ")}.`
        : "Not sent (no call spent): enter an API key first.";
    refusal.hidden = false;
    section.dataset.refused = String(Number(section.dataset.refused ?? "0") + 1);
    (found[0]?.control.input ?? keyInput).focus();
    return;
  }
  refusal.hidden = true;
  try {
    sessionStorage.setItem(EXPLORER_KEY, key);
  } catch {
    // Storage disabled: nothing to remember.
  }
  const body = {};
  for (const c of controls) {
    const v = c.read();
    if (v === undefined) continue;
    // "filter.sources" goes into body.filter.sources: the request's nested PostFilter.
    const path = c.name.split(".");
    let at = body;
    for (const part of path.slice(0, -1)) at = at[part] ??= {};
    at[path.at(-1)] = v;
  }
  const json = JSON.stringify(body);
  commands(section, json);
  const out = section.querySelector(".response");
  const statusEl = section.querySelector(".response-status");
  const tbody = section.querySelector(".response-headers tbody");
  const pre = section.querySelector(".response-body");
  out.hidden = false;
  statusEl.textContent = "Sending…";
  delete statusEl.dataset.status;
  tbody.replaceChildren();
  pre.textContent = "";
  section.querySelector(".response-cards").replaceChildren();
  section.querySelector(".response-summary").replaceChildren();
  let res;
  try {
    res = await fetch(section.dataset.restPath, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: json,
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    statusEl.textContent = `The request failed: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  for (const [name, value] of [...res.headers].sort(([a], [b]) => a.localeCompare(b))) {
    const tr = el("tr", { "data-header": name });
    tr.append(el("th", { scope: "row" }, name), el("td", {}, value));
    tbody.append(tr);
  }
  const text = await res.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
    pre.textContent = JSON.stringify(parsed, null, 2);
  } catch {
    pre.textContent = text;
  }
  const quota = res.headers.get("x-quota-remaining");
  statusEl.textContent = `${res.status} ${res.statusText}${quota !== null ? ` · quota left: ${/^\d+$/.test(quota) ? NUMBER.format(Number(quota)) : quota}` : ""}`;
  render(section, res.status, parsed);
  // Set last: tests wait on it, and by then the cards are in place.
  statusEl.dataset.status = String(res.status);
}

function fill(controls, example) {
  for (const c of controls) {
    c.set(c.name.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), example));
    c.show(undefined);
  }
}

async function main() {
  keyInput.value = storedKey();
  const sections = [...document.querySelectorAll("section.operation")];
  let doc;
  try {
    const res = await fetch(OPENAPI_URL, { credentials: "omit" });
    if (!res.ok) throw new Error(`${OPENAPI_URL} answered ${res.status}`);
    doc = await res.json();
  } catch (err) {
    for (const s of sections)
      s.querySelector(".fields").textContent =
        `Could not load the API description: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  for (const section of sections) {
    const holder = section.querySelector(".fields");
    const op = doc.paths?.[section.dataset.restPath]?.post;
    const schema = resolve(doc, op?.requestBody?.content?.["application/json"]?.schema);
    const required = new Set(schema.required ?? []);
    const controls = [];
    const parts = [];
    for (const [name, raw] of Object.entries(schema.properties ?? {})) {
      const prop = resolve(doc, raw);
      if (prop.type === "object" && prop.properties) {
        // A nested message (the PostFilter): one fieldset, its controls named "filter.<field>".
        const set = el("fieldset", { class: "nested" });
        set.append(el("legend", {}, name));
        if (prop.description) set.append(el("p", { class: "hint" }, prop.description));
        for (const [sub, subProp] of Object.entries(prop.properties)) {
          const c = control(section.dataset.operation, `${name}.${sub}`, resolve(doc, subProp), false);
          controls.push(c);
          set.append(c.wrap);
        }
        parts.push(set);
        continue;
      }
      const c = control(section.dataset.operation, name, prop, required.has(name));
      controls.push(c);
      parts.push(c.wrap);
    }
    holder.replaceChildren(...parts);
    for (const button of section.querySelectorAll("button.example")) {
      button.addEventListener("click", () => {
        try {
          fill(controls, JSON.parse(button.dataset.example ?? "{}"));
        } catch {
          // A malformed example is our bug; leave the form as it is.
        }
        controls[0]?.input.focus();
      });
    }
    section.querySelector("form").addEventListener("submit", (event) => {
      event.preventDefault();
      void send(section, controls);
    });
    section.dataset.ready = "true";
  }
}

void main();

// "Create a monitor from this query": the monitors page pre-fills its form from the link's query.
for (const link of document.querySelectorAll("a.monitor-link[data-operation]")) {
  link.addEventListener("click", () => {
    const input = document.getElementById(`${link.dataset.operation}-query`);
    const url = new URL(link.href);
    if (input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement)
      url.searchParams.set("query", input.value);
    link.href = url.toString();
  });
}
