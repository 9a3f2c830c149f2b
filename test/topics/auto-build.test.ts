/**
 * The automatic topic model step: the pure decision (too few posts, build, keep, refresh past the
 * growth share) and ensureTopicModel over the in-memory store and a real model.json, which builds
 * once, leaves the model alone below the share and refreshes it past the share.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  AUTO_BUILD_MIN_POSTS,
  ensureTopicModel,
  postsBuiltFrom,
  REFRESH_GROWTH_SHARE,
  topicModelNeed,
} from "../../src/topics/auto-build.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { loadTopicModel, topicModelPath } from "../../src/topics/model-file.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { trendCorpus } from "./fixture.js";
import { TrendOracle } from "./trend-oracle.js";

const { posts } = trendCorpus(true);
const model = (extra: Partial<TopicModel> = {}): TopicModel => ({
  ...buildTopicModel(posts, { k: 3, seed: 42 }).model,
  ...extra,
});

describe("topicModelNeed", () => {
  it("builds only from enough posts", () => {
    assert.deepEqual(topicModelNeed(undefined, AUTO_BUILD_MIN_POSTS - 1), {
      action: "too-few",
      minPosts: AUTO_BUILD_MIN_POSTS,
    });
    assert.deepEqual(topicModelNeed(undefined, AUTO_BUILD_MIN_POSTS), { action: "build" });
    assert.deepEqual(topicModelNeed(undefined, 0), { action: "too-few", minPosts: AUTO_BUILD_MIN_POSTS });
  });

  it("refreshes once the index has grown by the share since the build, not before", () => {
    const m = model({ builtFromPosts: 1000 });
    const at = 1000 * (1 + REFRESH_GROWTH_SHARE);
    assert.deepEqual(topicModelNeed(m, at - 1), { action: "current", builtFromPosts: 1000 });
    assert.deepEqual(topicModelNeed(m, at), { action: "refresh", builtFromPosts: 1000 });
    assert.deepEqual(
      topicModelNeed(m, 400),
      { action: "current", builtFromPosts: 1000 },
      "a shrunken index keeps its model",
    );
    assert.deepEqual(topicModelNeed(m, 1100, { growthShare: 0.1 }), { action: "refresh", builtFromPosts: 1000 });
  });

  it("reads the build size of an older model from its corpus counts", () => {
    const m = model();
    delete m.builtFromPosts;
    assert.equal(postsBuiltFrom(m), posts.length);
    assert.equal(
      postsBuiltFrom({ ...m, corpus: undefined } as TopicModel),
      m.topics.reduce((s, t) => s + t.size, 0),
    );
  });
});

describe("ensureTopicModel", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  async function fileIn(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-autobuild-"));
    dirs.push(dir);
    return topicModelPath(dir);
  }
  /** A store over copies of `posts` (untagged), counting how often it is opened. */
  function stores(initial: number) {
    const store = new TrendOracle(posts.slice(0, initial).map((p) => ({ ...p, topicId: "" })));
    let opened = 0;
    return {
      store,
      opened: () => opened,
      openStore: async () => {
        opened++;
        return store;
      },
    };
  }

  it("says so and builds nothing below the minimum", async () => {
    const file = await fileIn();
    const s = stores(50);
    const out = await ensureTopicModel({ file, posts: 50, openStore: s.openStore, minPosts: 100 });
    assert.equal(out.action, "too-few");
    assert.match(out.message, /50 posts, fewer than the 100/);
    assert.match(out.message, /threadsight topics rebuild/);
    assert.equal(s.opened(), 0);
    assert.equal(await loadTopicModel(file), undefined);
  });

  it("builds when there is none, keeps it below the share, refreshes it past the share", async () => {
    const file = await fileIn();
    const s = stores(100);
    const built = await ensureTopicModel({ file, posts: 100, openStore: s.openStore, minPosts: 100 });
    assert.equal(built.action, "built");
    const first = (await loadTopicModel(file))!;
    assert.equal(first.builtFromPosts, 100);
    assert.equal(first.version, 1);
    assert.ok(
      s.store.posts.every((p) => p.topicId !== ""),
      "every post is tagged with a topic",
    );

    // 40% more posts: under the 50% share, so the model stays and the store is not even opened.
    s.store.posts.push(...posts.slice(100, 140).map((p) => ({ ...p, topicId: "" })));
    const kept = await ensureTopicModel({ file, posts: 140, openStore: s.openStore, minPosts: 100 });
    assert.equal(kept.action, "current");
    assert.match(kept.message, /built from 100 posts, refreshed once the index reaches 150/);
    assert.equal(s.opened(), 1);
    assert.equal((await loadTopicModel(file))!.version, 1);

    // Past the share: rebuilt from every post, ids carried over where clusters persist.
    s.store.posts.push(...posts.slice(0, 20).map((p) => ({ ...p, id: `${p.id}-again`, topicId: "" })));
    const refreshed = await ensureTopicModel({ file, posts: 160, openStore: s.openStore, minPosts: 100 });
    assert.equal(refreshed.action, "refreshed");
    assert.match(refreshed.message, /grew from 100, past \+50%/);
    const second = (await loadTopicModel(file))!;
    assert.equal(second.version, 2);
    assert.equal(second.builtFromPosts, 160);
    assert.equal(s.opened(), 2);
    assert.ok(s.store.posts.every((p) => p.topicId !== ""));
  });
});
