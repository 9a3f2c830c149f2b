import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/model/post.js";
import { stackExchangeConnector } from "../../src/sources/stackexchange/se-connector.js";
import { seCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeStackExchange } from "../fakes/stackexchange-server.js";
import { startFakeStackExchange } from "../fakes/stackexchange-server.js";
import { corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

describe("Stack Exchange connector against the local API 2.3", { skip }, () => {
  let questions: Post[];
  let se: FakeStackExchange;
  const settings = (): Record<string, unknown> => ({ site: "startups", apiUrl: se.url });

  before(async () => {
    questions = await seCorpusPosts(400);
    se = await startFakeStackExchange("startups", questions);
  });
  after(async () => se?.close());

  it("pages new questions via has_more into posts with the dump reader's ids", async () => {
    const first = await pollOnce(stackExchangeConnector, settings(), undefined);
    assert.equal(first.error, undefined);
    const t = Math.floor(Date.now() / 1000) + 1;
    se.publish(150, t);
    const second = await pollOnce(stackExchangeConnector, settings(), first.cursor);
    assert.equal(second.error, undefined);
    assert.equal(second.batches.length, 2, "100 + 50 via has_more");
    assert.deepEqual(
      new Set(second.posts.map((p) => p.id)),
      new Set(questions.slice(0, 150).map((q) => q.id)),
      "ids are stackexchange:startups_se:<id>, as in the dump",
    );
    const dumpFirst = questions[0]!;
    const liveFirst = second.posts.find((p) => p.id === dumpFirst.id)!;
    assert.equal(liveFirst.title, dumpFirst.title);
    assert.equal(liveFirst.subforum, "startups_se");
    assert.match(liveFirst.url, /questions\/\d+$/);
    assert.deepEqual(se.violations, []);
  });

  it("waits out a backoff before calling the same method again", async () => {
    const t = Math.floor(Date.now() / 1000) + 2;
    se.publish(120, t);
    const cursor = JSON.stringify({ fromdate: t, page: 1 });
    se.sendBackoff(1);
    const started = Date.now();
    const res = await pollOnce(stackExchangeConnector, settings(), cursor);
    assert.equal(res.error, undefined);
    assert.equal(res.posts.length, 120);
    assert.ok(Date.now() - started >= 950, "the second page waited the 1 s backoff");
    assert.deepEqual(se.violations, []);
  });

  it("stops on quota_remaining 0 with a retry time at the UTC reset, after writing that page", async () => {
    const t = Math.floor(Date.now() / 1000) + 3;
    se.publish(110, t);
    se.setQuota(1);
    const res = await pollOnce(stackExchangeConnector, settings(), JSON.stringify({ fromdate: t, page: 1 }));
    const err = res.error as { kind?: string; retryAt?: number };
    assert.equal(err.kind, "quota_exhausted");
    assert.ok(err.retryAt !== undefined && err.retryAt > Date.now() && new Date(err.retryAt).getUTCHours() === 0);
    assert.equal(res.posts.length, 100, "the page the quota paid for is kept");
    assert.deepEqual(JSON.parse(res.cursor!), { fromdate: t, page: 2 });
    assert.deepEqual(se.violations, [], "no call after quota_remaining hit 0");
  });

  it("refuses bad settings naming the field", () => {
    assert.throws(() => stackExchangeConnector.validate({}), /settings\.site is required/);
    assert.throws(
      () => stackExchangeConnector.validate({ site: "Bad Site" }),
      /settings\.site must be an API site name/,
    );
    assert.throws(
      () => stackExchangeConnector.validate({ site: "startups", pagesize: 5 }),
      /settings\.pagesize is not a setting/,
    );
  });
});
