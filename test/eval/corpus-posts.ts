/**
 * Real posts from the shared corpora as `Post`s, for lead tests and evaluation: the reddit 2013
 * raw CSVs (one per subreddit) and the Stack Exchange startup questions. Test-only readers; the
 * ingest pipeline has its own.
 */
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import type { Post } from "../../src/model/post.js";
import { dataPath } from "./shared-data.js";

/** Folder of the reddit CSVs, relative to the shared data root. */
export const REDDIT_CSV_DIR = "corpora/reddit_top2013/raw_csv";

const cache = new Map<string, Post[]>();

/** Every post of one subreddit's CSV. */
export function redditPosts(subreddit: string): Post[] {
  const hit = cache.get(subreddit);
  if (hit) return hit;
  const rows = parse(readFileSync(dataPath(REDDIT_CSV_DIR, `${subreddit}.csv`), "utf8"), {
    columns: true,
    relax_quotes: true,
  }) as Record<string, string>[];
  const posts = rows.map(
    (r): Post => ({
      id: `reddit:${r.id}`,
      source: "reddit",
      nativeId: r.id ?? "",
      title: r.title ?? "",
      content: r.selftext ?? "",
      subforum: subreddit,
      author: "",
      upvotes: Number(r.score) || 0,
      comments: Number(r.num_comments) || 0,
      created: Math.round(Number(r.created_utc) * 1000),
      url: r.permalink ?? "",
    }),
  );
  cache.set(subreddit, posts);
  return posts;
}

/** One reddit post by subreddit and base36 id; throws when the data does not hold it. */
export function redditPost(subreddit: string, id: string): Post {
  const post = redditPosts(subreddit).find((p) => p.nativeId === id);
  if (!post) throw new Error(`reddit post ${id} not found in r/${subreddit}`);
  return post;
}

/** Every post of every subreddit CSV named. */
export function redditCorpus(subreddits: readonly string[]): Post[] {
  return subreddits.flatMap((s) => redditPosts(s));
}

/** A bare text (tweet, review sentence) wrapped as a post with the text as its body. */
export function textPost(text: string, id: string, subforum = ""): Post {
  return {
    id: `eval:${id}`,
    source: "eval",
    nativeId: id,
    title: "",
    content: text,
    subforum,
    author: "",
    upvotes: 0,
    comments: 0,
    created: 0,
    url: "",
  };
}
