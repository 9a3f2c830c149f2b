/**
 * A synthetic corpus for topic and trend tests: three themes with their own vocabularies (so
 * their bag-of-words vectors form three clusters), spread over Jan-Mar 2024 with a seeded
 * generator. "seo" posts surge in March with new words ("helpful content update"), "crypto"
 * is steady, "python" fades; a few posts fall on exactly one day (2024-02-14) for one-day windows.
 */
import type { IndexedPost } from "../../src/model/post.js";
import { embed, makePost } from "../index/synthetic.js";

/** Theme words; every post draws its words from its theme only. */
export const THEMES = {
  seo: "seo backlinks google ranking keywords serp traffic sitemap crawl domain authority".split(" "),
  crypto: "bitcoin ethereum wallet blockchain mining token exchange ledger coinbase altcoin".split(" "),
  python: "python pandas numpy django flask virtualenv pip pytest asyncio typing".split(" "),
} as const;
/** Words only March's seo posts use. */
export const SURGE_WORDS = ["helpful", "content", "update"];

/** A theme's name. */
export type ThemeName = keyof typeof THEMES;

const DAY = 86_400_000;
/** First and last day of the corpus. */
export const FIRST_DAY = Date.UTC(2024, 0, 1);
export const LAST_DAY = Date.UTC(2024, 2, 31);

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** The corpus with `topicId` set to the theme name when `tagged`, else "". */
export function trendCorpus(tagged = true): { posts: IndexedPost[]; themeOf: Map<string, ThemeName> } {
  const next = lcg(7);
  const posts: IndexedPost[] = [];
  const themeOf = new Map<string, ThemeName>();
  const add = (theme: ThemeName, created: number, extra: string[] = []) => {
    const words = THEMES[theme];
    const pick = (k: number) => Array.from({ length: k }, () => words[Math.floor(next() * words.length)]!);
    const title = [...pick(4), ...extra.slice(0, 2)].join(" ");
    const content = [...pick(20), ...extra].join(" ");
    const i = posts.length;
    const post = makePost({
      nativeId: `p${i}`,
      title,
      content,
      subforum: `${theme}-${["a", "b", "c", "d"][Math.floor(next() * 4)]}`,
      created: created + Math.floor(next() * (DAY - 1)),
      upvotes: Math.floor(next() * 200),
      comments: Math.floor(next() * 40),
      sentimentScore: Math.round((next() * 2 - 1) * 1000) / 1000,
      topicId: tagged ? theme : "",
      vector: embed(`${theme} ${theme} ${theme} ${title} ${content}`),
    });
    posts.push(post);
    themeOf.set(post.id, theme);
  };
  for (let day = FIRST_DAY; day <= LAST_DAY; day += DAY) {
    const march = day >= Date.UTC(2024, 2, 1);
    const month = new Date(day).getUTCMonth();
    if (next() < (march ? 0.9 : 0.25)) add("seo", day, march ? SURGE_WORDS : []);
    if (march && next() < 0.6) add("seo", day, SURGE_WORDS);
    if (next() < 0.4) add("crypto", day);
    if (next() < [0.6, 0.35, 0.2][month]!) add("python", day);
  }
  // A one-day window with a known content: 2024-02-14 gets two extra crypto posts.
  add("crypto", Date.UTC(2024, 1, 14));
  add("crypto", Date.UTC(2024, 1, 14));
  return { posts, themeOf };
}
