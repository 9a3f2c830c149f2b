/**
 * Real posts from ../shared/data/corpora for the live-source fakes, read with the project's own
 * dump readers (never copied into the repository).
 */
import { createReadStream } from "node:fs";
import path from "node:path";
import { readHnCsv } from "../../src/ingest/readers/hn-csv.js";
import { readRedditCsv } from "../../src/ingest/readers/reddit-csv.js";
import { readStackExchangeJsonl } from "../../src/ingest/readers/stackexchange-jsonl.js";
import type { Post } from "../../src/model/post.js";
import { CORPORA } from "../harness/seed.js";

async function take(reader: AsyncIterable<{ post: Post } | { skip: unknown }>, limit: number): Promise<Post[]> {
  const posts: Post[] = [];
  for await (const item of reader) {
    if ("post" in item) posts.push(item.post);
    if (posts.length >= limit) break;
  }
  return posts;
}

/** The first `limit` Hacker News stories of the CSV corpus. */
export function hnCorpusPosts(limit: number): Promise<Post[]> {
  return take(readHnCsv(createReadStream(path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv"))), limit);
}

/** The first `limit` questions of the startups.stackexchange corpus, with their raw records. */
export function seCorpusPosts(limit: number): Promise<Post[]> {
  return take(
    readStackExchangeJsonl(createReadStream(path.join(CORPORA, "stackexchange_startups/startups_se_questions.jsonl"))),
    limit,
  );
}

/** The first `limit` questions of the onstartups corpus, a forum for the Discourse fake to host. */
export function onstartupsCorpusPosts(limit: number): Promise<Post[]> {
  return take(
    readStackExchangeJsonl(createReadStream(path.join(CORPORA, "stackexchange_startups/onstartups_questions.jsonl"))),
    limit,
  );
}

/** The first `limit` submissions of one subreddit of the Reddit top-2013 corpus (raw_csv/<sub>.csv). */
export function redditCorpusPosts(subreddit: string, limit: number): Promise<Post[]> {
  return take(readRedditCsv(createReadStream(path.join(CORPORA, `reddit_top2013/raw_csv/${subreddit}.csv`))), limit);
}
