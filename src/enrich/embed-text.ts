/**
 * The text a post is embedded from, and the text a query is embedded from.
 *
 * A post is embedded as its title plus the first {@link EMBED_CONTENT_CHARS} characters of its
 * content, cut at a word boundary. The title and opening lines say what a forum post is about;
 * the rest is detail, signatures and tangents that dilute one 512-d vector. The cap also bounds
 * cost: USE-lite pads each batch to its longest text and attention grows faster than length, so
 * longer texts embed several times slower than titles. 300 keeps the opening paragraph of nearly
 * every question while keeping a whole-corpus ingest affordable (docs/decisions/0002-embedded-text.md).
 *
 * A query is embedded like a title (one line, whitespace collapsed): queries are short and
 * title-like, so both sides of the comparison look alike to the model.
 */
import type { Post } from "../model/post.js";

/** Characters of content embedded after the title. */
export const EMBED_CONTENT_CHARS = 300;

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cuts `text` to at most `max` characters, at the last space when one is near the end. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return space >= max * 0.6 ? cut.slice(0, space) : cut;
}

/**
 * The first `max` characters of collapse(text) cut at a word, reading only as much of `text` as
 * that needs (a post body can run to tens of kilobytes; ingest embeds its opening 300 characters).
 * Collapsing a prefix gives the same characters as collapsing the whole text, except where the
 * prefix ends inside a run of spaces (trimmed there): so once a prefix collapses to max + 2 or
 * more characters, its first max + 1 are the whole text's, and cutAtWord reads no further.
 */
function collapsedOpening(text: string, max: number): string {
  for (let n = 2 * max + 64; n < text.length; n *= 4) {
    const head = collapse(text.slice(0, n));
    if (head.length >= max + 2) return cutAtWord(head.slice(0, max + 1), max);
  }
  return cutAtWord(collapse(text), max);
}

/** The text embedded for a post: "title. opening of the content". */
export function postEmbeddingText(post: Pick<Post, "title" | "content">): string {
  const title = collapse(post.title);
  const content = collapsedOpening(post.content, EMBED_CONTENT_CHARS);
  if (content === "") return title;
  return /[.!?:;]$/.test(title) ? `${title} ${content}` : `${title}. ${content}`;
}

/** The text embedded for a search query. */
export function queryEmbeddingText(query: string): string {
  return collapse(query);
}
