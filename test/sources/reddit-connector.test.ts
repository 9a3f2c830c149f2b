/**
 * The Reddit OAuth connector against a local Reddit: the client credentials grant and a token
 * shared by polls until it nears expiry (or is refused), Listing pages through `after`, the
 * dump reader's ids (a post in a dump and then live is one post), edits re-read, the
 * `X-Ratelimit-*` window obeyed, a walk cut off by the item cap continued, bad credentials named.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Post } from "../../src/model/post.js";
import { redditConnector } from "../../src/sources/reddit/reddit-connector.js";
import { redditCorpusPosts } from "../fakes/corpus-posts.js";
import type { FakeReddit } from "../fakes/reddit-server.js";
import { startFakeReddit } from "../fakes/reddit-server.js";
import { corporaSkip } from "../harness/seed.js";
import { pollOnce } from "./poll-helpers.js";

const skip = corporaSkip();

describe("Reddit connector against a local OAuth API", { skip }, () => {
  let corpus: Post[];
  let reddit: FakeReddit;
  let cursor: string | undefined;
  const creds = { clientId: "app-id-1", clientSecret: "app-secret-1" };
  const settings = (fake: FakeReddit, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    subreddit: "startups",
    ...creds,
    tokenUrl: `${fake.url}/api/v1/access_token`,
    apiUrl: fake.url,
    ...extra,
  });

  before(async () => {
    corpus = await redditCorpusPosts("startups", 900);
    reddit = await startFakeReddit("startups", corpus, creds);
  });
  after(async () => reddit?.close());

  it("pages /new through after with one token, into the dump reader's posts", async () => {
    reddit.publish(5, Date.now() - 60_000);
    const first = await pollOnce(redditConnector, settings(reddit), undefined);
    assert.equal(first.error, undefined, String(first.error));
    assert.deepEqual(first.posts, []);
    const made = reddit.publish(250);
    const second = await pollOnce(redditConnector, settings(reddit), first.cursor);
    assert.equal(second.error, undefined, String(second.error));
    assert.equal(reddit.tokensIssued, 1, "the token is shared by polls");
    assert.ok(reddit.count(/after=t3_/) >= 2, "pages followed through after");
    assert.deepEqual(new Set(second.posts.map((p) => p.id)), new Set(made.map((t) => `reddit:${t.id}`)));
    const dump = new Map(corpus.map((p) => [p.id, p]));
    for (const live of second.posts) {
      const d = dump.get(live.id);
      assert.ok(d !== undefined, `${live.id} is a dump id`);
      assert.deepEqual(
        { title: live.title, subforum: live.subforum, url: live.url, content: live.content },
        { title: d.title, subforum: d.subforum, url: d.url, content: d.content },
      );
    }
    cursor = second.cursor;
    assert.deepEqual(reddit.violations, []);
  });

  it("re-reads an edited post, renews a refused token once, and continues a walk cut off by the cap", async () => {
    // Edits are seen on the pages a walk reads: the newest page, when nothing new came.
    const old = reddit.things[reddit.things.length - 3]!;
    reddit.edit(old.id, "Edited after it was first seen");
    reddit.revokeTokens();
    const edited = await pollOnce(redditConnector, settings(reddit), cursor);
    assert.equal(edited.error, undefined, String(edited.error));
    assert.deepEqual(
      edited.posts.map((p) => [p.id, p.content]),
      [[`reddit:${old.id}`, "Edited after it was first seen"]],
    );
    assert.equal(reddit.tokensIssued, 2, "a 401 renewed the token");
    const made = reddit.publish(250);
    const cut = await pollOnce(redditConnector, settings(reddit), edited.cursor, {}, 150);
    assert.equal(cut.posts.length, 200, "two pages fit the cap of 150 items");
    assert.ok(JSON.parse(cut.cursor!).resume !== undefined);
    const rest = await pollOnce(redditConnector, settings(reddit), cut.cursor);
    const all = new Set([...cut.posts, ...rest.posts].map((p) => p.id));
    for (const t of made) assert.ok(all.has(`reddit:${t.id}`), `${t.id} is read`);
    assert.equal(JSON.parse(rest.cursor!).resume, undefined);
    assert.deepEqual(reddit.violations, []);
  });

  it("waits out X-Ratelimit-Reset with no request left, and renews a token before it expires", async () => {
    const tight = await startFakeReddit("startups", corpus.slice(600), {
      clientId: "app-id-2",
      clientSecret: "app-secret-2",
      windowRequests: 2,
      windowSeconds: 2,
      tokenTtlSeconds: 61,
    });
    try {
      const s = settings(tight, { clientId: "app-id-2", clientSecret: "app-secret-2" });
      const first = await pollOnce(redditConnector, s, undefined);
      assert.equal(first.error, undefined, String(first.error));
      tight.publish(250);
      const started = Date.now();
      const res = await pollOnce(redditConnector, s, first.cursor);
      assert.equal(res.error, undefined, String(res.error));
      assert.equal(res.posts.length, 250);
      assert.ok(Date.now() - started >= 900, "the third page waited for the window to reset");
      const issued = tight.tokensIssued;
      await sleep(1100);
      await pollOnce(redditConnector, s, res.cursor);
      assert.equal(tight.tokensIssued, issued + 1, "a token within a minute of expiry is renewed, not used");
      assert.deepEqual(tight.violations, []);
    } finally {
      await tight.close();
    }
  });

  it("names bad credentials and bad settings", async () => {
    const res = await pollOnce(redditConnector, settings(reddit, { clientSecret: "wrong" }), undefined);
    assert.equal((res.error as { kind?: string }).kind, "client_error");
    assert.match(
      String((res.error as Error).message),
      /refused the client credentials \(HTTP 401\).*settings\.clientId/,
    );
    assert.throws(() => redditConnector.validate({ subreddit: "startups" }), /settings\.clientId is required/);
    assert.throws(
      () => redditConnector.validate({ subreddit: "r/startups", ...creds }),
      /settings\.subreddit must be a subreddit name/,
    );
  });
});
