/**
 * Shortens post text for responses: at most SNIPPET_MAX_CHARS, cut at a word boundary, with an
 * ellipsis when something was cut. Cutting by code points keeps emoji and CJK intact.
 */

/** Longest `content` returned by search and leads, in characters (documented in the README). */
export const SNIPPET_MAX_CHARS = 500;

/** Returns `text` shortened to at most `max` characters at a word boundary. */
export function shorten(text: string, max: number = SNIPPET_MAX_CHARS): string {
  const clean = text.replace(/\s+/g, " ").trim();
  const chars = [...clean];
  if (chars.length <= max) return clean;
  const head = chars.slice(0, max - 1).join("");
  const lastSpace = head.lastIndexOf(" ");
  // A single very long token has no boundary worth keeping; cut it where it is.
  const cut = lastSpace >= max * 0.6 ? head.slice(0, lastSpace) : head;
  return `${cut.replace(/[\s,;:.!?-]+$/, "")}…`;
}
