/**
 * Text handling for lead detection: the post's title and body as one string, split into
 * sentences that keep their position (title first), with URLs and markdown noise removed so
 * patterns see prose.
 */
import type { Post } from "../../model/post.js";

/** One sentence of a post. `inTitle` marks sentences taken from the title. */
export interface Sentence {
  text: string;
  inTitle: boolean;
  /** 0-based index over the whole post (title sentences first). */
  index: number;
}

/** Long bodies are cut: intent is stated early, and the cost of a post must stay bounded. */
export const MAX_BODY_CHARS = 4000;

const URL = /\bhttps?:\/\/\S+|\bwww\.\S+/gi;

/** Removes URLs, markdown links/emphasis and collapses whitespace. */
export function clean(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(URL, " ")
    .replace(/[*_`#>]+/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]+/g, " ")
    .trim();
}

function split(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    // A sentence ends at . ! ? (runs of them) followed by space and a capital; abbreviations such
    // as "vs." and "e.g." do not end one, and decimals never match.
    for (const part of line.split(/(?<!\b(?:[Vv]s|[Ee]\.g|[Ii]\.e|etc|approx|[Mm]rs?|[Mm]s|[Dd]r|[Ss]t|[Ii]nc|[Ll]td|[Nn]o)\.)(?<=[.!?]+)\s+(?=[A-Z0-9"'(\[@#])/)) {
      const s = part.trim();
      if (s.length > 1) out.push(s);
    }
  }
  return out;
}

/** The post's sentences, title first. A title ending without punctuation is still one sentence. */
export function sentencesOf(post: Pick<Post, "title" | "content">): Sentence[] {
  const title = split(clean(post.title));
  const body = split(clean(post.content.slice(0, MAX_BODY_CHARS)));
  return [
    ...title.map((text, i) => ({ text, inTitle: true, index: i })),
    ...body.map((text, i) => ({ text, inTitle: false, index: title.length + i })),
  ];
}

/** URLs in the raw post text (title and body). */
export function countUrls(post: Pick<Post, "title" | "content">): number {
  return (post.title.match(URL)?.length ?? 0) + (post.content.slice(0, MAX_BODY_CHARS).match(URL)?.length ?? 0);
}
