/**
 * Shortens post text for responses: at most SNIPPET_MAX_CHARS, cut at a word boundary, with an
 * ellipsis when something was cut. Cutting by code points keeps emoji and CJK intact.
 *
 * It runs on every hit of every search and leads page, and posts run to many KB, so the text is
 * folded and counted in one pass that stops as soon as the snippet is decided: a post costs
 * what its first SNIPPET_MAX_CHARS characters cost, whatever its length.
 */

/** Longest `content` returned by search and leads, in characters (documented in the README). */
export const SNIPPET_MAX_CHARS = 500;

/** True for the UTF-16 units JavaScript's `\s` and `trim()` treat as whitespace. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Returns `text` shortened to at most `max` characters at a word boundary. */
export function shorten(text: string, max: number = SNIPPET_MAX_CHARS): string {
  if (!Number.isInteger(max) || max < 1) return shortenPlain(text, max);
  // Whitespace runs fold to one space, written only when a character follows it (so the end
  // is trimmed); leading whitespace is skipped. Stops at max + 1 code points: then it is cut.
  let out = "";
  let count = 0;
  let headEnd = max === 1 ? 0 : -1;
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  let runStart = i;
  let spaceBefore = false;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      if (!spaceBefore) {
        out += text.slice(runStart, i);
        spaceBefore = true;
      }
      i++;
      continue;
    }
    if (spaceBefore) {
      out += " ";
      spaceBefore = false;
      runStart = i;
      if (++count === max - 1) headEnd = out.length;
      if (count > max) break;
    }
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    if (++count === max - 1) headEnd = out.length + (i - runStart);
    if (count > max) break;
  }
  if (!spaceBefore) out += text.slice(runStart, i);
  if (count <= max) return out;
  return cutAtWord(out.slice(0, headEnd), max);
}

/** The snippet of a text already cut to its first `max - 1` code points. */
function cutAtWord(head: string, max: number): string {
  const lastSpace = head.lastIndexOf(" ");
  // A single very long token has no boundary worth keeping; cut it where it is.
  const cut = lastSpace >= max * 0.6 ? head.slice(0, lastSpace) : head;
  return `${cut.replace(/[\s,;:.!?-]+$/, "")}…`;
}

/**
 * The plain definition (folds and splits the whole text): used for limits the one-pass fold does
 * not cover (fractional, below 1), and the reference the one-pass version is tested against.
 */
export function shortenPlain(text: string, max: number = SNIPPET_MAX_CHARS): string {
  const clean = text.replace(/\s+/g, " ").trim();
  const chars = [...clean];
  if (chars.length <= max) return clean;
  return cutAtWord(chars.slice(0, max - 1).join(""), max);
}
