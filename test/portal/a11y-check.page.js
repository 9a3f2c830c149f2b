// Runs inside the page (plain JS, evaluated as a string by a11y-check.ts so no TypeScript or
// bundler helpers end up in it). Evaluates to an array of problem descriptions.
(() => {
  const problems = [];
  const describe = (el) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.getAttribute("name") ? `[name=${el.getAttribute("name")}]` : ""}`;
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };

  if (!document.documentElement.lang) problems.push("html has no lang");
  if (document.querySelectorAll("h1").length !== 1)
    problems.push(`expected one h1, found ${document.querySelectorAll("h1").length}`);

  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (el instanceof HTMLInputElement && el.type === "hidden") continue;
    const labelled =
      (el.labels?.length ?? 0) > 0 || el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby");
    if (!labelled) problems.push(`${describe(el)} has no label`);
  }
  for (const el of document.querySelectorAll("img"))
    if (!el.hasAttribute("alt")) problems.push(`${describe(el)} has no alt`);
  for (const el of document.querySelectorAll("svg")) {
    if (el.getAttribute("aria-hidden") === "true") continue;
    const named =
      el.hasAttribute("aria-label") ||
      el.hasAttribute("aria-labelledby") ||
      el.querySelector(":scope > title") !== null;
    if (!named || el.getAttribute("role") !== "img")
      problems.push(`${describe(el)} has no text alternative (role=img + title/aria-label)`);
  }
  for (const el of document.querySelectorAll("button, a[href]")) {
    const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim();
    if (name === "") problems.push(`${describe(el)} has no accessible name`);
  }
  for (const el of document.querySelectorAll("[aria-describedby], [aria-labelledby]")) {
    for (const attr of ["aria-describedby", "aria-labelledby"]) {
      for (const id of (el.getAttribute(attr) ?? "").split(/\s+/).filter(Boolean)) {
        if (document.getElementById(id) === null) problems.push(`${describe(el)} ${attr} points at missing #${id}`);
      }
    }
  }
  const ids = new Map();
  for (const el of document.querySelectorAll("[id]")) ids.set(el.id, (ids.get(el.id) ?? 0) + 1);
  for (const [id, n] of ids) if (n > 1) problems.push(`id ${id} used ${n} times`);

  // Contrast: relative luminance per WCAG 2.x.
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return undefined;
    const parts = m[1]
      .split(/[,\s/]+/)
      .filter(Boolean)
      .map(Number);
    return [parts[0], parts[1], parts[2], parts[3] ?? 1];
  };
  const lum = ([r, g, b]) => {
    const ch = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
  };
  const background = (el) => {
    for (let e = el; e !== null; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c !== undefined && c[3] > 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") !== null || !visible(el)) continue;
    const ownText = [...el.childNodes].some(
      (n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "",
    );
    if (!ownText) continue;
    const style = getComputedStyle(el);
    const fg = parse(style.color);
    if (fg === undefined) continue;
    const bg = background(el);
    const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5))
      problems.push(`${describe(el)} "${(el.textContent ?? "").trim().slice(0, 30)}" contrast ${ratio.toFixed(2)}:1`);
  }
  return problems;
})();
