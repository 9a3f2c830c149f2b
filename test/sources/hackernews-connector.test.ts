import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/model/post.js";
import { hackerNewsConnector } from "../../src/sources/hackernews/hn-connector.js";
import { hnCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeHn } from "../fakes/hackernews-server.js";
import { startFakeHn } from "../fakes/hackernews-server.js";
import { corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

describe("Hacker News connector against the local HN API", { skip }, () => {
  let stories: Post[];
  let hn: FakeHn;
  const settings = (): Record<string, unknown> => ({ firebaseUrl: hn.url, algoliaUrl: hn.url });

  before(async () => {
    stories = await hnCorpusPosts(400);
  });
  after(async () => hn?.close());

  it("starts at maxitem, then reads only the new stories (comments are not posts) with the dump's ids", async () => {
    hn = await startFakeHn(stories);
    hn.publish(3);
    const first = await pollOnce(hackerNewsConnector, settings(), undefined);
    assert.equal(first.error, undefined);
    assert.deepEqual(first.posts, [], "backlog 0: the first poll only fixes the starting point");
    const published = hn.publish(5);
    const second = await pollOnce(hackerNewsConnector, settings(), first.cursor);
    assert.equal(second.error, undefined);
    assert.deepEqual(
      second.posts.map((p) => p.id),
      published.map((s) => `hackernews:${s.id}`),
    );
    assert.equal(second.posts[0]!.title, stories[3]!.title);
    assert.equal(second.posts[0]!.url, `https://news.ycombinator.com/item?id=${published[0]!.id}`);
    assert.equal(JSON.parse(second.cursor!).next, hn.maxItem + 1);
    const third = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, second.cursor);
    assert.deepEqual(third.posts, [], "caught up: nothing new, nothing repeated");
    assert.deepEqual(hn.violations, []);
  });

  it("drops deleted and dead items, re-reads edited stories from updates.json, and waits at an id not yet visible", async () => {
    const first = await pollOnce(hackerNewsConnector, settings(), undefined);
    const [a, b, c] = hn.publish(3);
    hn.edit(b!.id, { deleted: true });
    hn.edit(c!.id, { dead: true });
    const hole = hn.reserveNull();
    const [d] = hn.publish(1);
    const second = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, first.cursor);
    assert.deepEqual(
      second.posts.map((p) => p.id),
      [`hackernews:${a!.id}`],
      "stops below the unknown id; deleted and dead are skipped",
    );
    assert.equal(JSON.parse(second.cursor!).next, hole);
    hn.items.set(hole, { id: hole, type: "comment", by: "x", time: 1, parent: a!.id });
    hn.edit(a!.id, { title: "An edited title", score: 999 });
    const third = await pollOnce(hackerNewsConnector, settings(), second.cursor);
    assert.deepEqual(
      third.posts.map((p) => p.id),
      [`hackernews:${d!.id}`, `hackernews:${a!.id}`],
    );
    assert.equal(third.posts[1]!.title, "An edited title");
    assert.equal(third.posts[1]!.upvotes, 999);
  });

  it("retries 5xx, truncated JSON and 429, waiting out Retry-After, without a politeness violation", async () => {
    const first = await pollOnce(hackerNewsConnector, settings(), undefined);
    const published = hn.publish(4);
    hn.inject({ path: /^\/v0\/item\//, kind: "500", times: 2 });
    hn.inject({ path: /^\/v0\/item\//, kind: "truncate", times: 1 });
    hn.inject({ path: /^\/v0\/item\//, kind: "429", retryAfter: 1, times: 1 });
    const started = Date.now();
    const second = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, first.cursor, {
      concurrency: 2,
    });
    assert.equal(second.error, undefined);
    assert.deepEqual(
      second.posts.map((p) => p.id),
      published.map((s) => `hackernews:${s.id}`),
    );
    assert.ok(Date.now() - started >= 900, "the Retry-After second was waited out");
    assert.deepEqual(hn.violations, []);
  });

  it("stops at the per-poll item cap and the request budget, resuming where it stopped", async () => {
    const first = await pollOnce(hackerNewsConnector, settings(), undefined);
    const published = hn.publish(10);
    const capped = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, first.cursor, {}, 6);
    assert.deepEqual(
      capped.posts.map((p) => p.id),
      published.slice(0, 3).map((s) => `hackernews:${s.id}`),
      "6 items = 3 stories and their comments",
    );
    const budget = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, capped.cursor, {
      maxRequests: 3,
      concurrency: 1,
    });
    assert.equal((budget.error as { kind?: string }).kind, "budget_exhausted");
    assert.equal(budget.requests, 3);
    const rest = await pollOnce(hackerNewsConnector, { ...settings(), refreshUpdates: false }, budget.cursor);
    assert.deepEqual(
      rest.posts.map((p) => p.id),
      published.slice(3).map((s) => `hackernews:${s.id}`),
    );
  });

  it("backfills a date range through Algolia page by page, then follows new items", async () => {
    const base = Date.UTC(2024, 0, 10);
    const old = [...hn.publish(120, base)];
    const cursor = (await pollOnce(hackerNewsConnector, settings(), undefined)).cursor;
    const range = { ...settings(), backfillFrom: "2024-01-09", backfillTo: "2024-01-11", refreshUpdates: false };
    const one = await pollOnce(
      hackerNewsConnector,
      range,
      JSON.stringify({ ...JSON.parse(cursor!), backfillPage: 0 }),
      {},
      100,
    );
    assert.equal(one.posts.length, 100);
    assert.equal(JSON.parse(one.cursor!).backfillPage, 1);
    const two = await pollOnce(hackerNewsConnector, range, one.cursor);
    assert.equal(JSON.parse(two.cursor!).backfillPage, "done");
    assert.deepEqual(
      new Set([...one.posts, ...two.posts].map((p) => p.id)),
      new Set(old.map((s) => `hackernews:${s.id}`)),
    );
    assert.ok(hn.count(/search_by_date/) >= 2);
  });
});
