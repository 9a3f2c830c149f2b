/**
 * Turns forum markup into plain text for storage, display and embedding: HTML entities decoded,
 * HTML tags and comments dropped (HN item text, older Stack Exchange bodies), markdown reduced to
 * its words (reddit selftext, Stack Exchange bodies). The aim is readable text, not a faithful
 * renderer: link text stays and URLs go, code stays as text, and paragraph breaks survive as
 * blank lines.
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
  trade: "™",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  deg: "°",
  middot: "·",
  bull: "•",
  times: "×",
  divide: "÷",
  laquo: "«",
  raquo: "»",
  para: "¶",
  sect: "§",
  shy: "",
};

/**
 * Decodes named (common set) and numeric HTML entities; unknown names are left as written.
 * `passes` > 1 undoes repeated escaping ("&amp;amp;" -> "&"), which older reddit text has.
 */
export function decodeEntities(text: string, passes = 1): string {
  let out = text;
  for (let i = 0; i < passes && out.includes("&"); i += 1) {
    const next = decodeOnce(out);
    if (next === out) break;
    out = next;
  }
  return out;
}

function decodeOnce(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Drops HTML tags, turning block-level boundaries into line breaks, then decodes entities. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/?(p|div|li|ul|ol|pre|blockquote|h[1-6]|tr|table)\b[^>]*>/gi, "\n\n")
    .replace(/<[^>]+>/g, "");
  return tidy(decodeEntities(text));
}

/**
 * Markdown -> plain text. Reddit escapes `&`, `<`, `>` in selftext as entities, so entities are
 * decoded last: `&lt;b&gt;` written by a user stays the literal text `<b>`.
 */
export function markdownToText(markdown: string, options: { html?: boolean; entityPasses?: number } = {}): string {
  let text = markdown.replace(/\r\n?/g, "\n");
  if (options.html === true) {
    text = text
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/<br\s*\/?>/gi, "\n")
      .replace(/<\/?(p|div|li|ul|ol|pre|blockquote|h[1-6])\b[^>]*>/gi, "\n\n")
      .replace(/<\/?[a-zA-Z][^>]*>/g, "");
  }
  // Backslash-escaped punctuation is parked in the private-use area so the emphasis rules
  // below cannot pair it, then restored as the literal character.
  text = text.replace(/\\([\\`*_{}[\]()#+\-.!>~|^])/g, (_, c: string) => String.fromCharCode(0xe000 + c.charCodeAt(0)));
  text = text
    .replace(/^\s*```[^\n]*$/gm, "") // code fences: keep the code, drop the fence lines
    .replace(/^ {0,3}\[[^\]\n]+\]:\s*\S+.*$/gm, "") // reference link definitions
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1") // images -> alt text
    // inline links -> text; the text may hold one level of brackets ("[[source]](url)") and
    // the URL may be padded with whitespace, have balanced parentheses, or an escaped closing parenthesis
    .replace(/\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(?:\([^()\s]*\)|[^()\s]|\()*\s*(?:"[^"]*"\s*)?\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1") // reference links -> text
    .replace(/^ {0,3}#{1,6}\s+/gm, "") // ATX headings
    .replace(/^ {0,3}#{1,6}$/gm, "")
    .replace(/^ {0,3}(?:[-*_] *){3,}$/gm, "") // horizontal rules
    .replace(/^ {0,3}(?:=+|-+)\s*$/gm, "") // setext underlines
    .replace(/^ {0,3}(?:> ?)+/gm, "") // blockquotes
    .replace(/^(\s*)(?:[-*+]|\d{1,9}[.)])\s+/gm, "$1") // list markers
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2") // bold
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, "$1$2") // *italic*
    .replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, "$1$2") // _italic_
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1") // strikethrough
    .replace(/`{1,3}([^`\n]+)`{1,3}/g, "$1") // inline code
    .replace(/\^(\S)/g, "$1") // reddit superscript
    .replace(/[\ue000-\ue07f]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000));
  return tidy(decodeEntities(text, options.entityPasses ?? 1));
}

/**
 * C0 control characters other than the whitespace ones (tab, line feed, vertical tab, form feed,
 * carriage return), and DEL: a NUL or an escape in a dump is noise, and kept in a title it reaches
 * every client that prints the post.
 */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/** Collapses runs of spaces, trims lines, keeps at most one blank line between paragraphs, and drops control characters. */
export function tidy(text: string): string {
  return text
    .replace(CONTROL, "")
    .replace(/\u00a0/g, " ")
    .replace(/[ \t\f\v]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** One-line text: all whitespace runs become one space, control characters go. For titles. */
export function singleLine(text: string): string {
  return text.replace(CONTROL, "").replace(/\s+/g, " ").trim();
}
