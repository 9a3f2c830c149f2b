// The API explorer: builds one form per operation from the OpenAPI document, sends the real API
// call with the key typed (or handed over from the keys page) as a Bearer token, and shows the
// status, headers and body plus equivalent curl and buf curl commands. Everything the server
// returns is written with textContent, never parsed as HTML.
const OPENAPI_URL = "/api/v1/openapi.json";
const EXPLORER_KEY = "threadsight.explorer-key";
const KEY_PLACEHOLDER = "$THREADSIGHT_API_KEY";

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
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : String(v));
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

// One labelled control per schema property; the control remembers how to read its value.
function control(opId, name, prop, required) {
  const id = `${opId}-${name}`;
  const wrap = el("div", { class: "field" });
  const label = el("label", { for: id }, name + (required ? " (required)" : ""));
  wrap.append(label);
  const hintId = `${id}-hint`;
  const hint = el("p", { class: "hint", id: hintId }, prop.description ?? "");
  let input;
  let read;
  if (Array.isArray(prop.enum)) {
    input = el("select", { id, name });
    if (!required) input.append(el("option", { value: "" }, "(default)"));
    for (const v of prop.enum) input.append(el("option", { value: v }, v));
    read = () => input.value || undefined;
  } else if (prop.type === "integer" || prop.type === "number") {
    input = el("input", { id, name, type: "number", min: prop.minimum, max: prop.maximum, step: prop.type === "integer" ? 1 : "any", placeholder: prop.default });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (prop.type === "boolean") {
    input = el("input", { id, name, type: "checkbox" });
    read = () => (input.checked ? true : undefined);
  } else if (prop.type === "array") {
    input = el("input", { id, name, type: "text", placeholder: "comma-separated" });
    hint.textContent = `${prop.description ?? ""} Separate values with commas.`.trim();
    read = () => {
      const items = input.value.split(",").map((s) => s.trim()).filter(Boolean);
      return items.length > 0 ? items : undefined;
    };
  } else {
    input = el("input", { id, name, type: prop.format === "date" ? "date" : "text", maxlength: prop.maxLength, required, spellcheck: "false" });
    read = () => (input.value === "" ? undefined : input.value);
  }
  input.setAttribute("aria-describedby", hintId);
  wrap.append(hint, input);
  return { wrap, name, read };
}

function shellQuote(s) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function commands(section, json) {
  const origin = location.origin;
  const rest = section.dataset.restPath;
  const grpc = section.dataset.grpcPath;
  const curl = [
    `curl -sS -X POST ${shellQuote(origin + rest)} \\`,
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
    `  ${shellQuote(origin + grpc)}`,
  ].join("\n");
  section.querySelector(".cmd-curl").textContent = curl;
  section.querySelector(".cmd-buf").textContent = buf;
  section.querySelector(".commands").hidden = false;
}

async function send(section, controls) {
  const key = keyInput.value.trim();
  if (key === "") {
    keyError.textContent = "Enter an API key first (create one on the API keys page).";
    keyError.hidden = false;
    keyInput.setAttribute("aria-invalid", "true");
    keyInput.setAttribute("aria-describedby", "explorer-key-hint explorer-error");
    keyInput.focus();
    return;
  }
  keyError.hidden = true;
  keyInput.removeAttribute("aria-invalid");
  try {
    sessionStorage.setItem(EXPLORER_KEY, key);
  } catch {
    // Storage disabled: nothing to remember.
  }
  const body = {};
  for (const c of controls) {
    const v = c.read();
    if (v !== undefined) body[c.name] = v;
  }
  const json = JSON.stringify(body);
  commands(section, json);
  const out = section.querySelector(".response");
  const statusEl = section.querySelector(".response-status");
  const tbody = section.querySelector(".response-headers tbody");
  const pre = section.querySelector(".response-body");
  out.hidden = false;
  statusEl.textContent = "Sending…";
  tbody.replaceChildren();
  pre.textContent = "";
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
  statusEl.textContent = `${res.status} ${res.statusText}`;
  statusEl.dataset.status = String(res.status);
  for (const [name, value] of [...res.headers].sort(([a], [b]) => a.localeCompare(b))) {
    const tr = el("tr", { "data-header": name });
    tr.append(el("th", { scope: "row" }, name), el("td", {}, value));
    tbody.append(tr);
  }
  const text = await res.text();
  try {
    pre.textContent = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    pre.textContent = text;
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
    for (const s of sections) s.querySelector(".fields").textContent = `Could not load the API description: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  for (const section of sections) {
    const holder = section.querySelector(".fields");
    const op = doc.paths?.[section.dataset.restPath]?.post;
    const schema = resolve(doc, op?.requestBody?.content?.["application/json"]?.schema);
    const required = new Set(schema.required ?? []);
    const controls = Object.entries(schema.properties ?? {}).map(([name, prop]) => control(section.dataset.operation, name, resolve(doc, prop), required.has(name)));
    holder.replaceChildren(...controls.map((c) => c.wrap));
    section.querySelector("form").addEventListener("submit", (event) => {
      event.preventDefault();
      void send(section, controls);
    });
    section.dataset.ready = "true";
  }
}

void main();
