/**
 * The Discourse connector against a local forum: paging of the latest list, first posts as
 * plain text under category slugs, the documented ids, bumps and edits, a topic gone between its
 * listing and its read, 429/5xx/truncated answers, the API key headers, resuming from a mid-poll
 * cursor, and the `/posts.json` catch-up after a poll cut off by the item cap.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/model/post.js";
import { discourseConnector } from "../../src/sources/discourse/discourse-connector.js";
import { onstartupsCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeDiscourse } from "../fakes/discourse-server.js";
import { startFakeDiscourse } from "../fakes/discourse-server.js";
import { corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

describe("Discourse connector against a local forum", { skip }, () => {
  let corpus: Post[];
  let forum: FakeDiscourse;
  let cursor: string | undefined;
  const settings = (): Record<string, unknown> => ({ baseUrl: forum.url, host: "forum.example.org" });
  const idOf = (topicId: number): string => `discourse:forum.example.org:${topicId}`;

  before(async () => {
    corpus = await onstartupsCorpusPosts(300);
    forum = await startFakeDiscourse(corpus, { perPage: 30 });
  });
  after(async () => forum?.close());

  it("starts from now, then pages the latest list into first posts with stable ids and category slugs", async () => {
    forum.publish(5, Date.now() - 60_000);
    const first = await pollOnce(discourseConnector, settings(), undefined);
    assert.equal(first.error, undefined);
    assert.deepEqual(first.posts, [], "backlog 0: nothing before the source was added");
    cursor = first.cursor;

    const made = forum.publish(45);
    const latestBefore = forum.count(/^\/latest/);
    const second = await pollOnce(discourseConnector, settings(), cursor);
    assert.equal(second.error, undefined);
    assert.equal(forum.count(/^\/latest/) - latestBefore, 2, "two pages through more_topics_url");
    assert.deepEqual(new Set(second.posts.map((p) => p.id)), new Set(made.map((t) => idOf(t.id))));
    const t = made[3]!;
    const p = second.posts.find((x) => x.id === idOf(t.id))!;
    const src = corpus[8]!;
    assert.equal(p.title, src.title);
    assert.equal(p.source, "discourse");
    assert.equal(p.nativeId, `forum.example.org:${t.id}`);
    assert.doesNotMatch(p.content, /<p>|&amp;/, "cooked HTML made plain");
    assert.match(p.url, new RegExp(`/t/${t.slug}/${t.id}$`));
    assert.deepEqual(new Set(second.posts.map((x) => x.subforum)), new Set(["startups", "funding"]));
    assert.equal(second.batches.length, 3, "20 topics a batch");
    assert.deepEqual(forum.violations, []);

    // Resuming from the first batch's cursor (a sync killed after writing it) reads the rest, no gap.
    const resumed = await pollOnce(discourseConnector, settings(), second.batches[0]!.cursor);
    const rest = new Set(second.batches.slice(1).flatMap((b) => b.posts.map((x) => x.id)));
    for (const id of rest)
      assert.ok(
        resumed.posts.some((x) => x.id === id),
        `${id} is read again after a restart`,
      );
    cursor = second.cursor;
    const idle = await pollOnce(discourseConnector, settings(), cursor);
    assert.deepEqual(idle.posts, [], "caught up: nothing bumped since");
  });

  it("re-reads a bumped topic with its edited first post, and skips a topic gone since it was listed", async () => {
    const [edited, gone] = [...forum.topics.values()].filter((t) => !t.pinned).slice(-2);
    forum.edit(edited!.id, "Edited after it was first seen: how do I price a SaaS product?");
    forum.reply(edited!.id);
    forum.reply(gone!.id);
    forum.vanish(gone!.id);
    const res = await pollOnce(discourseConnector, settings(), cursor);
    assert.equal(res.error, undefined);
    assert.deepEqual(
      res.posts.map((p) => p.id),
      [idOf(edited!.id)],
    );
    assert.match(res.posts[0]!.content, /^Edited after it was first seen/);
    assert.equal(res.posts[0]!.comments, 1, "the reply counts");
    cursor = res.cursor;
  });

  it("waits out 429 Retry-After and retries 5xx and truncated JSON without a politeness violation", async () => {
    const made = forum.publish(3);
    forum.inject({ path: /^\/latest\.json$/, kind: "429", retryAfter: 1, times: 1 });
    forum.inject({ path: /^\/t\/\d+\.json$/, kind: "500", times: 1 });
    forum.inject({ path: /^\/t\/\d+\.json$/, kind: "truncate", times: 1 });
    const started = Date.now();
    const res = await pollOnce(discourseConnector, settings(), cursor);
    assert.equal(res.error, undefined, String(res.error));
    assert.ok(Date.now() - started >= 950, "the 1 s Retry-After was waited");
    assert.deepEqual(new Set(res.posts.map((p) => p.id)), new Set(made.map((t) => idOf(t.id))));
    assert.deepEqual(forum.violations, []);
    cursor = res.cursor;
  });

  it("catches up on new topics through /posts.json?before= after a poll cut off by the item cap", async () => {
    const made = forum.publish(70);
    const cut = await pollOnce(discourseConnector, settings(), cursor, {}, 30);
    assert.equal(cut.error, undefined);
    assert.equal(cut.posts.length, 29, "the cap allowed one page: the pinned About topic and 29 new ones");
    assert.ok(JSON.parse(cut.cursor!).gap !== undefined, "the catch-up is owed in the cursor");
    const postsBefore = forum.count(/^\/posts\.json/);
    const rest = await pollOnce(discourseConnector, settings(), cut.cursor);
    assert.equal(rest.error, undefined);
    assert.ok(forum.count(/^\/posts\.json\?before=/) >= 1, "paged back with before=");
    assert.ok(forum.count(/^\/posts\.json/) - postsBefore >= 2);
    const all = new Set([...cut.posts, ...rest.posts].map((p) => p.id));
    for (const t of made) assert.ok(all.has(idOf(t.id)), `topic ${t.id} is caught up`);
    assert.equal(JSON.parse(rest.cursor!).gap, undefined, "nothing owed any more");
    assert.deepEqual(forum.violations, []);
  });

  it("sends Api-Key and Api-Username when given, and refuses bad settings naming the field", async () => {
    const key = { key: "k-123", username: "system" };
    const priv = await startFakeDiscourse(corpus.slice(200), { requireKey: key });
    try {
      priv.publish(2, Date.now() - 1000);
      const anon = await pollOnce(discourseConnector, { baseUrl: priv.url }, undefined);
      assert.equal((anon.error as { kind?: string; status?: number }).status, 403);
      const keyed = await pollOnce(
        discourseConnector,
        { baseUrl: priv.url, apiKey: key.key, apiUsername: key.username, backlog: 10 },
        undefined,
      );
      assert.equal(keyed.error, undefined);
      assert.equal(keyed.posts.length, 2, "backlog 10 reads the latest page's two topics (not the pinned one)");
      assert.match(keyed.posts[0]!.id, /^discourse:127\.0\.0\.1:\d+:\d+$/, "the host (with port) from baseUrl");
    } finally {
      await priv.close();
    }
    assert.throws(() => discourseConnector.validate({}), /settings\.baseUrl is required/);
    assert.throws(
      () => discourseConnector.validate({ baseUrl: "https://x.org", apiKey: "k" }),
      /settings\.apiKey and settings\.apiUsername must be given together/,
    );
    assert.throws(() => discourseConnector.validate({ baseUrl: "ftp://x.org" }), /settings\.baseUrl must be an http/);
  });
});
