import assert from "node:assert/strict";
import { createReadStream } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readRedditCsv } from "../../src/ingest/readers/reddit-csv.js";
import type { Post } from "../../src/model/post.js";
import { rssConnector } from "../../src/sources/rss/rss-connector.js";
import type { FakeFeed } from "../fakes/rss-server.js";
import { startFakeFeed } from "../fakes/rss-server.js";
import { CORPORA, corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

describe("RSS connector against a local subreddit-style feed", { skip }, () => {
  let posts: Post[];
  let feed: FakeFeed;
  const settings = (): Record<string, unknown> => ({ url: `${feed.url}/r/startups/.rss` });

  before(async () => {
    posts = [];
    for await (const item of readRedditCsv(
      createReadStream(path.join(CORPORA, "reddit_top2013/raw_csv/startups.csv")),
    )) {
      if ("post" in item) posts.push(item.post);
      if (posts.length >= 40) break;
    }
    feed = await startFakeFeed("startups");
  });
  after(async () => feed?.close());

  it("reads entries as the Reddit dump's posts, skips repeated entries, re-reads edited ones, and uses 304s", async () => {
    feed.publish(posts.slice(0, 5));
    const first = await pollOnce(rssConnector, settings(), undefined);
    assert.equal(first.error, undefined);
    assert.deepEqual(
      new Set(first.posts.map((p) => p.id)),
      new Set(posts.slice(0, 5).map((p) => p.id)),
      "reddit:<id>, the dump's ids",
    );
    const unchanged = await pollOnce(rssConnector, settings(), first.cursor);
    assert.equal(feed.notModified, 1, "the second poll was a conditional GET answered 304");
    assert.deepEqual(unchanged.posts, []);
    feed.publish(posts.slice(5, 8));
    const second = await pollOnce(rssConnector, settings(), first.cursor);
    assert.deepEqual(
      new Set(second.posts.map((p) => p.id)),
      new Set(posts.slice(5, 8).map((p) => p.id)),
      "the feed repeats the first five; only the new three are posts to write",
    );
    feed.edit(posts[1]!.id, "edited after it was first seen");
    const third = await pollOnce(rssConnector, settings(), second.cursor);
    assert.deepEqual(
      third.posts.map((p) => p.id),
      [posts[1]!.id],
    );
    assert.equal(third.posts[0]!.content, "edited after it was first seen");
    assert.deepEqual(feed.violations, []);
  });

  it("reports a body that is not a feed as a bad response, and refuses settings without a url", async () => {
    assert.throws(() => rssConnector.validate({}), /settings\.url is required/);
    const res = await pollOnce(rssConnector, { url: `${feed.url}/nowhere` }, undefined);
    assert.equal((res.error as { kind?: string }).kind, "client_error");
  });
});
