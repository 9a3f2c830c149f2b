/**
 * The Lemmy connector against a local instance, in both paging styles (0.19 `page_cursor`, 0.18
 * page numbers and zone-less times): new posts with the documented ids, a late federated post
 * caught within the grace, an edit written again, a deleted post dropped, a walk cut off by the
 * item cap continued from its cursor, faults retried politely, and bad settings refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/model/post.js";
import { lemmyConnector } from "../../src/sources/lemmy/lemmy-connector.js";
import { redditCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeLemmy } from "../fakes/lemmy-server.js";
import { startFakeLemmy } from "../fakes/lemmy-server.js";
import { corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

for (const version of ["0.19", "0.18"] as const) {
  describe(`Lemmy connector against a local ${version} instance`, { skip }, () => {
    let corpus: Post[];
    let lemmy: FakeLemmy;
    let host: string;
    let cursor: string | undefined;
    const settings = (): Record<string, unknown> => ({ instanceUrl: lemmy.url, community: "startups" });

    before(async () => {
      corpus = await redditCorpusPosts("startups", 400);
      lemmy = await startFakeLemmy("startups", corpus, { version });
      host = new URL(lemmy.url).host;
    });
    after(async () => lemmy?.close());

    it("starts from now, then pages new posts into lemmy:<host>:<id> posts of the community", async () => {
      lemmy.publish(5, Date.now() - 60_000);
      const first = await pollOnce(lemmyConnector, settings(), undefined);
      assert.equal(first.error, undefined);
      assert.deepEqual(first.posts, []);
      const made = lemmy.publish(120);
      const before = lemmy.count(/post\/list/);
      const second = await pollOnce(lemmyConnector, settings(), first.cursor);
      assert.equal(second.error, undefined);
      assert.equal(lemmy.count(/post\/list/) - before, 3, "pages of 50 until the old posts");
      assert.deepEqual(new Set(second.posts.map((p) => p.id)), new Set(made.map((p) => `lemmy:${host}:${p.id}`)));
      const src = corpus[5]!;
      const p = second.posts.find((x) => x.id === `lemmy:${host}:${made[0]!.id}`)!;
      assert.equal(p.title, src.title);
      assert.equal(p.subforum, "startups");
      assert.equal(p.created, made[0]!.published, "times without a zone are UTC");
      if (version === "0.19") assert.ok(lemmy.count(/page_cursor=/) >= 1, "0.19 pages by next_page");
      else assert.ok(lemmy.count(/page=2/) >= 1, "0.18 pages by number");
      cursor = second.cursor;
      const idle = await pollOnce(lemmyConnector, settings(), cursor);
      assert.deepEqual(idle.posts, []);
      assert.deepEqual(lemmy.violations, []);
    });

    it("writes an edited post again, drops a deleted one, and takes a late federated post by its origin id", async () => {
      const [kept, gone] = lemmy.posts.slice(-2);
      lemmy.edit(kept!.id, "Edited after it was first seen");
      const fresh = lemmy.publish(1)[0]!;
      lemmy.remove(fresh.id);
      const late = lemmy.federate("lemmy.world", 777, Date.now() - 5 * 60_000);
      const res = await pollOnce(lemmyConnector, settings(), cursor);
      assert.equal(res.error, undefined);
      const ids = res.posts.map((p) => p.id).sort();
      assert.deepEqual(ids, [`lemmy:${host}:${kept!.id}`, "lemmy:lemmy.world:777"].sort());
      assert.equal(res.posts.find((p) => p.id.endsWith(`:${kept!.id}`))!.content, "Edited after it was first seen");
      assert.equal(res.posts.find((p) => p.id === "lemmy:lemmy.world:777")!.url, late.apId);
      assert.ok(gone !== undefined);
      cursor = res.cursor;
    });

    it("continues a walk cut off by the item cap, and retries faults without a violation", async () => {
      const made = lemmy.publish(150);
      const cut = await pollOnce(lemmyConnector, settings(), cursor, {}, 60);
      assert.equal(cut.error, undefined);
      assert.equal(cut.posts.length, 100, "two pages fit the cap of 60 items");
      assert.ok(JSON.parse(cut.cursor!).resume !== undefined);
      lemmy.inject({ path: /post\/list/, kind: "429", retryAfter: 1, times: 1 });
      lemmy.inject({ path: /post\/list/, kind: "truncate", times: 1 });
      lemmy.inject({ path: /post\/list/, kind: "503", times: 1 });
      const rest = await pollOnce(lemmyConnector, settings(), cut.cursor);
      assert.equal(rest.error, undefined, String(rest.error));
      const all = new Set([...cut.posts, ...rest.posts].map((p) => p.id));
      for (const p of made) assert.ok(all.has(`lemmy:${host}:${p.id}`), `post ${p.id} is read`);
      assert.equal(JSON.parse(rest.cursor!).resume, undefined, "the walk finished");
      assert.deepEqual(lemmy.violations, []);
    });

    it("refuses bad settings naming the field", () => {
      assert.throws(() => lemmyConnector.validate({ community: "x" }), /settings\.instanceUrl is required/);
      assert.throws(
        () => lemmyConnector.validate({ instanceUrl: "https://lemmy.ml" }),
        /settings\.community is required/,
      );
      assert.throws(
        () => lemmyConnector.validate({ instanceUrl: "https://lemmy.ml", community: "no spaces" }),
        /settings\.community must be a community name/,
      );
    });
  });
}
