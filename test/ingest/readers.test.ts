/**
 * Readers on small crafted inputs written to a temp dir: the shapes the real corpora do not
 * cover (API listing JSON, HN API items, .gz, a long-window .zst made with the zstd CLI, generic
 * JSONL with --map) and every skip rule with its line number.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import type { ReadItem } from "../../src/ingest/read-item.js";
import { parseFieldMap } from "../../src/ingest/readers/generic-jsonl.js";
import { ZstdError } from "../../src/ingest/zstd-stream.js";
import type { Post } from "../../src/model/post.js";
import { allItems, firstItems } from "./corpora.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-readers-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

const postsOf = (items: ReadItem[]): Post[] => items.flatMap((i) => ("post" in i ? [i.post] : []));
const skipsOf = (items: ReadItem[]): [number, string][] =>
  items.flatMap((i) => ("skip" in i ? [[i.skip.line, i.skip.reason] as [number, string]] : []));

const submission = (over: Record<string, unknown>): Record<string, unknown> => ({
  id: "abc1",
  subreddit: "startups",
  title: "How do I find Q&amp;A users?",
  selftext: 'I built a **tool** for [founders](https://example.com "x").\n\n* one\n* two &amp;amp; three',
  score: 12,
  num_comments: 3,
  created_utc: 1371237018,
  permalink: "/r/startups/comments/abc1/how_do_i/",
  author: "alice",
  ...over,
});

const NDJSON = [
  JSON.stringify(submission({})),
  "{not json",
  "",
  JSON.stringify([1, 2]),
  JSON.stringify(submission({ id: "abc2", title: "  " })),
  JSON.stringify(submission({ id: "abc3", created_utc: "yesterday" })),
  JSON.stringify(submission({ id: "abc4", selftext: "[removed]", author: "[deleted]" })),
  JSON.stringify(submission({ id: "abc5", title: "[deleted]" })),
  JSON.stringify(submission({ id: undefined, name: "t3_abc6", permalink: undefined, subreddit: "SEO" })),
].join("\r\n");

test("reddit NDJSON: markup stripped, entities decoded, each skip rule with its line", async () => {
  const items = await allItems(write("dump.ndjson", NDJSON));
  const posts = postsOf(items);
  assert.deepEqual(posts[0], {
    id: "reddit:abc1",
    source: "reddit",
    nativeId: "abc1",
    title: "How do I find Q&A users?",
    content: "I built a tool for founders.\n\none\ntwo & three",
    subforum: "startups",
    author: "alice",
    upvotes: 12,
    comments: 3,
    created: 1371237018000,
    url: "https://www.reddit.com/r/startups/comments/abc1/how_do_i/",
  });
  assert.equal(posts[1]!.id, "reddit:abc4");
  assert.equal(posts[1]!.content, "", "a removed body keeps the post, without content");
  assert.equal(posts[1]!.author, "");
  assert.equal(posts[2]!.id, "reddit:abc6");
  assert.equal(posts[2]!.url, "https://www.reddit.com/comments/abc6/");
  assert.equal(posts.length, 3);
  assert.deepEqual(skipsOf(items), [
    [2, "bad_json"],
    [4, "bad_json"],
    [5, "missing_title"],
    [6, "bad_date"],
    [8, "deleted"],
  ]);
});

test(".gz and .zst (window log 31) decompress to the same records as the plain file", async () => {
  const plain = write("same.ndjson", NDJSON);
  write("same.ndjson.gz", gzipSync(NDJSON));
  // Compressed from stdin, the frame declares the full 2 GB window (window log 31), as real
  // dumps do; plain `zstd -d` refuses it, so this proves the reader asks for --long=31.
  const long = write("same.ndjson.zst", execFileSync("zstd", ["-q", "-c", "--long=31"], { input: NDJSON }));
  assert.throws(
    () => execFileSync("zstd", ["-q", "-dc", long], { stdio: "pipe" }),
    /Window size larger than maximum|too much memory/,
  );
  const expected = await allItems(plain);
  assert.deepEqual(await allItems(path.join(dir, "same.ndjson.gz")), expected);
  assert.deepEqual(await allItems(path.join(dir, "same.ndjson.zst")), expected);
});

test("stopping early closes the input: no zstd child is left for NDJSON or CSV", async () => {
  const csv = [
    "id,title,url,num_points,num_comments,author,created_at",
    ...Array.from({ length: 50_000 }, (_, i) => `${i + 1},Title ${i},http://x,1,0,a,1/2/2016 3:04`),
  ].join("\n");
  const files = [
    write("many.ndjson.zst", execFileSync("zstd", ["-q", "-c", "--long=31"], { input: `${NDJSON}\n`.repeat(5000) })),
    write("many.csv.zst", execFileSync("zstd", ["-q", "-c", "--long=31"], { input: csv })),
  ];
  for (const file of files) {
    assert.equal((await firstItems(file, 10)).length, 10);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(
      !process.getActiveResourcesInfo().includes("ProcessWrap"),
      `${file}: still running: ${process.getActiveResourcesInfo().join(", ")}`,
    );
  }
});

test("a damaged .zst fails with a ZstdError naming the file; a missing zstd CLI says how to install it", async () => {
  const good = execFileSync("zstd", ["-q", "-c", "--long=31"], { input: NDJSON.repeat(50) });
  const bad = write("bad.ndjson.zst", good.subarray(0, Math.floor(good.length / 2)));
  await assert.rejects(
    allItems(bad, "reddit-ndjson"),
    (err: Error) => err instanceof ZstdError && err.message.includes(bad),
  );
  const ok = write("ok.ndjson.zst", good);
  const savedPath = process.env.PATH;
  process.env.PATH = path.join(dir, "no-such-bin");
  try {
    await assert.rejects(
      allItems(ok, "reddit-ndjson"),
      (err: Error) =>
        err instanceof ZstdError && /zstd command is not installed.*apt-get install zstd/.test(err.message),
    );
  } finally {
    process.env.PATH = savedPath;
  }
});

test("reddit listing JSON: t3 children become posts, other kinds and deleted posts are skipped", async () => {
  const listing = {
    kind: "Listing",
    data: {
      after: "t3_x",
      children: [
        { kind: "t3", data: submission({ id: "l1" }) },
        { kind: "t1", data: { id: "c1", body: "a comment" } },
        { kind: "t3", data: submission({ id: "l2", title: "[removed]" }) },
        { kind: "t3", data: submission({ id: "l3", created_utc: null }) },
        { kind: "t3", data: submission({ id: "l4", selftext: "[deleted]" }) },
      ],
    },
  };
  const items = await allItems(write("new.json", JSON.stringify(listing, null, 2)));
  assert.deepEqual(
    postsOf(items).map((p) => [p.id, p.content]),
    [
      ["reddit:l1", "I built a tool for founders.\n\none\ntwo & three"],
      ["reddit:l4", ""],
    ],
  );
  assert.deepEqual(skipsOf(items), [
    [1, "not_a_post"],
    [1, "deleted"],
    [1, "bad_date"],
  ]);
  const detail = items.find((i) => "skip" in i && i.skip.reason === "not_a_post");
  assert.match(JSON.stringify(detail), /children\[1\]/);
  // JSON Lines of listings (one saved page a line) also read, with each page's line.
  const pages = [
    JSON.stringify(listing),
    JSON.stringify({ kind: "Listing", data: { children: [{ kind: "t3", data: submission({ id: "l9" }) }] } }),
  ].join("\n");
  const paged = await allItems(write("pages.jsonl", pages), "reddit-listing");
  assert.deepEqual(
    postsOf(paged).map((p) => p.id),
    ["reddit:l1", "reddit:l4", "reddit:l9"],
  );
});

const story = (over: Record<string, unknown>): Record<string, unknown> => ({
  id: 8863,
  type: "story",
  by: "dhouston",
  time: 1175714200,
  title: "My YC app: Dropbox - Throw away your USB drive",
  text: '<p>It syncs files &amp; folders.</p><p>See <a href="https://x.example">this</a></p>',
  url: "http://www.getdropbox.com/u/2/screencast.html",
  score: 111,
  descendants: 71,
  ...over,
});

test("HN API item JSON: a single pretty-printed item, an array, and JSON Lines with skips", async () => {
  const single = postsOf(await allItems(write("item.json", JSON.stringify(story({}), null, 2))));
  assert.deepEqual(single, [
    {
      id: "hackernews:8863",
      source: "hackernews",
      nativeId: "8863",
      title: "My YC app: Dropbox - Throw away your USB drive",
      content: "It syncs files & folders.\n\nSee this",
      subforum: "hackernews",
      author: "dhouston",
      upvotes: 111,
      comments: 71,
      created: 1175714200000,
      url: "https://news.ycombinator.com/item?id=8863",
    },
  ]);
  const array = postsOf(
    await allItems(write("items.json", JSON.stringify([story({ id: 1 }), story({ id: 2, text: undefined })]))),
  );
  assert.deepEqual(
    array.map((p) => [p.id, p.content]),
    [
      ["hackernews:1", "It syncs files & folders.\n\nSee this"],
      ["hackernews:2", ""],
    ],
  );
  const jsonl = [
    JSON.stringify(story({ id: 10 })),
    JSON.stringify({ id: 11, type: "comment", by: "x", time: 1175714300, text: "hi", parent: 10 }),
    JSON.stringify(story({ id: 12, dead: true })),
    '{"id": 13, "type": "story"',
    JSON.stringify(story({ id: 14, title: "" })),
    JSON.stringify(story({ id: 15, time: "soon" })),
  ].join("\n");
  const items = await allItems(write("items.jsonl", jsonl));
  assert.deepEqual(
    postsOf(items).map((p) => p.id),
    ["hackernews:10"],
  );
  assert.deepEqual(skipsOf(items), [
    [2, "not_a_post"],
    [3, "deleted"],
    [4, "bad_json"],
    [5, "missing_title"],
    [6, "bad_date"],
  ]);
});

test("CSV readers: multi-line rows keep their first line; malformed rows and bad dates are skipped", async () => {
  const header =
    "created_utc,score,domain,id,title,ups,downs,num_comments,permalink,selftext,link_flair_text,over_18,thumbnail,subreddit_id,edited,link_flair_css_class,author_flair_css_class,is_self,name,url,distinguished";
  const row = (id: string, title: string, body: string, created = "1371237018.0"): string =>
    `${created},5,self.webdev,${id},"${title}",6,1,2,http://www.reddit.com/r/webdev/comments/${id}/t/,"${body}",,False,,t5_x,False,,,True,t3_${id},http://x,`;
  const csv = [
    header,
    row("r1", "One", "line one\nline two"),
    row("r2", "Two", "b"),
    "1371237018.0,5,too,few",
    row("r3", "Three", "c", "not-a-date"),
    row("r4", "", "d"),
  ].join("\n");
  const items = await allItems(write("webdev.csv", csv));
  const posts = postsOf(items);
  assert.deepEqual(
    posts.map((p) => [p.id, p.subforum, p.content]),
    [
      ["reddit:r1", "webdev", "line one\nline two"],
      ["reddit:r2", "webdev", "b"],
    ],
  );
  assert.deepEqual(
    items.flatMap((i) => ("post" in i ? [i.line] : [])),
    [2, 4],
  );
  assert.deepEqual(skipsOf(items), [
    [5, "bad_row"],
    [6, "bad_date"],
    [7, "missing_title"],
  ]);
  const hn = [
    "id,title,url,num_points,num_comments,author,created_at",
    "1,Show HN: A,http://a,3,1,x,2/29/2016 23:59",
    "2,B,http://b,3,1,x,2/30/2016 1:00",
    "3,C,http://c,3,1,x,13/1/2016 1:00",
  ].join("\n");
  const hnItems = await allItems(write("hn.csv", hn));
  assert.deepEqual(
    postsOf(hnItems).map((p) => [p.id, p.created]),
    [["hackernews:1", Date.UTC(2016, 1, 29, 23, 59)]],
  );
  assert.deepEqual(skipsOf(hnItems), [
    [3, "bad_date"],
    [4, "bad_date"],
  ]);
});

test("generic JSONL with --map: dotted paths, epoch s/ms and ISO dates, required fields", async () => {
  const map = parseFieldMap(
    "id=post_id,title=headline,content=body,created=ts,subforum=meta.board,upvotes=meta.votes,url=link",
  );
  const lines = [
    {
      post_id: "p1",
      headline: "First",
      body: "Some *markdown*",
      ts: 1700000000,
      meta: { board: "general", votes: "7" },
      link: "https://f.example/p1",
    },
    { post_id: "p2", headline: "Second", ts: 1700000000123 },
    { post_id: "p3", headline: "Third", ts: "2023-11-14T22:13:20Z" },
    { post_id: "p4", headline: "Fourth", ts: "2023-11-14" },
    { headline: "No id", ts: 1700000000 },
    { post_id: "p6", ts: 1700000000 },
    { post_id: "p7", headline: "Bad date", ts: "last week" },
    // Date.parse would roll these over to 1 March and 1 May: a mistyped date is refused, not moved.
    { post_id: "p8", headline: "No 30 February", ts: "2020-02-30" },
    { post_id: "p9", headline: "No 31 April", ts: "2020-04-31T10:00:00+02:00" },
    { post_id: "p10", headline: "No 29 February in 2021", ts: "2021-02-29T00:00:00Z" },
    { post_id: "p11", headline: "Leap day", ts: "2020-02-29T24:00:00Z" },
  ].map((l) => JSON.stringify(l));
  const items = await allItems(write("forum.jsonl", lines.join("\n")), "jsonl", { map, source: "forum" });
  const posts = postsOf(items);
  assert.deepEqual(posts[0], {
    id: "forum:p1",
    source: "forum",
    nativeId: "p1",
    title: "First",
    content: "Some markdown",
    subforum: "general",
    author: "",
    upvotes: 7,
    comments: 0,
    created: 1700000000000,
    url: "https://f.example/p1",
  });
  assert.deepEqual(
    posts.map((p) => p.created),
    [1700000000000, 1700000000123, 1700000000000, Date.UTC(2023, 10, 14), Date.UTC(2020, 2, 1)],
  );
  assert.deepEqual(skipsOf(items), [
    [5, "missing_id"],
    [6, "missing_title"],
    [7, "bad_date"],
    [8, "bad_date"],
    [9, "bad_date"],
    [10, "bad_date"],
  ]);
  assert.throws(() => parseFieldMap("title=headline"), /must name id, created/);

  // No map: the post model's own field names.
  const own = await allItems(
    write(
      "own.jsonl",
      JSON.stringify({
        id: "q1",
        title: "Own names",
        content: "Body",
        subforum: "general",
        author: "ann",
        upvotes: 3,
        comments: 2,
        created: "2023-11-14",
        url: "https://f.example/q1",
        extra: true,
      }),
    ),
    "jsonl",
    { source: "forum" },
  );
  assert.deepEqual(postsOf(own), [
    {
      id: "forum:q1",
      source: "forum",
      nativeId: "q1",
      title: "Own names",
      content: "Body",
      subforum: "general",
      author: "ann",
      upvotes: 3,
      comments: 2,
      created: Date.UTC(2023, 10, 14),
      url: "https://f.example/q1",
    },
  ]);
  assert.throws(() => parseFieldMap("id=a,title=b,created=c,colour=d"), /unknown field "colour"/);
});

test("Stack Exchange JSONL: the site's duplicate box and the archive's 'no answers' notice are cut, the asker's words kept", async () => {
  const notice = (licence: string): string =>
    `\n\n## No Answers\n\nThere were no answers to this question.\n\n\n---\n\n${licence}`;
  const rows = [
    {
      body: `Is there a CRM for florists?${notice("All content is licensed under [CC BY-SA 3.0](https://creativecommons.org/licenses/by-sa/3.0/).")}`,
    },
    {
      body: `Any payroll tool?\n\nThanks.${notice("All content is licensed under the [CC BY-SA 3.0 license](https://creativecommons.org/licenses/by-sa/3.0/).")}`,
    },
    // The asker's own mention of a licence, and a heading of theirs, stay.
    { body: "Our library is licensed under the GPL.\n\n## No Answers yet from our lawyer\n\nWhat now?" },
    {
      body: notice(
        "All content is licensed under [CC BY-SA 3.0](https://creativecommons.org/licenses/by-sa/3.0/).",
      ).trim(),
    },
    // The site's "Possible Duplicate" box names another question; the asker's text follows it.
    {
      body:
        "> **Possible Duplicate:**  \n> [What is the best merchant processing solution?](http://answers.onstartups.com/questions/615/x)  \n\n" +
        "<!-- End of automatically inserted text -->\n\nI plan to sell online space and charge per month.",
    },
  ];
  const file = write(
    "se.jsonl",
    rows
      .map((r, i) =>
        JSON.stringify({ id: i + 1, community: "startups_se", title: `q${i + 1}`, created_date: "2015-01-02", ...r }),
      )
      .join("\n") + "\n",
  );
  const contents = postsOf(await allItems(file, "stackexchange-jsonl")).map((p) => p.content);
  assert.deepEqual(contents, [
    "Is there a CRM for florists?",
    "Any payroll tool?\n\nThanks.",
    "Our library is licensed under the GPL.\n\nNo Answers yet from our lawyer\n\nWhat now?",
    "",
    "I plan to sell online space and charge per month.",
  ]);
});
