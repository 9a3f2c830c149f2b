/**
 * The portal's only way to produce HTML: a tagged template whose every interpolation is escaped
 * unless it is already a SafeHtml made by this same tag. Escaping covers text and quoted
 * attribute values alike (& < > " ' ` =), so a template cannot forget which context it is in.
 * Templates must quote every attribute value; nothing here writes unquoted attributes.
 */

/** HTML built by {@link html}; interpolating it into another template does not escape it again. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
  "=": "&#61;",
};

/** Escapes text for use in element content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (c) => ENTITIES[c]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === undefined || value === null || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/**
 * Tagged template: `html\`<p title="${t}">${text}</p>\``. Arrays render each item; null,
 * undefined and false render nothing (for `${cond && html\`...\`}`).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}
