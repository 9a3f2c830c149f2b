/**
 * Every reader over the real corpora in ../shared/data: field mapping checked on known records,
 * and whole-file counts compared with counts taken independently of the readers (newline counts,
 * `zstd -dc | wc -l`, the dataset's own STATS.txt). None of these files has a record that the
 * skip rules drop, so "rows minus documented skips" is "rows".
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Post } from "../../src/model/post.js";
import { allItems, CORPORA, corporaSkip, countItems, firstItems, readFile } from "./corpora.js";

const skip = corporaSkip();
const REDDIT_ZST = path.join(CORPORA, "reddit_top2013/submissions_top2013.ndjson.zst");
const REDDIT_CSV_DIR = path.join(CORPORA, "reddit_top2013/raw_csv");
const HN_CSV = path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv");
const SE_DIR = path.join(CORPORA, "stackexchange_startups");

function newlines(file: string): number {
  const bytes = readFileSync(file);
  let n = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) n += 1;
  return n;
}

function posts(items: Awaited<ReturnType<typeof allItems>>): Post[] {
  return items.flatMap((i) => ("post" in i ? [i.post] : []));
}

test("reddit NDJSON .zst (long window): first records map field by field", { skip }, async () => {
  const items = await firstItems(REDDIT_ZST, 200);
  assert.equal(items.length, 200);
  const all = posts(items);
  assert.equal(all.length, 200, "no skips in the first 200 records");
  assert.deepEqual(all[0], {
    id: "reddit:1e0h9m",
    source: "reddit",
    nativeId: "1e0h9m",
    title: "Finals: Only Needed A 63 For My B",
    content: "",
    subforum: "Accounting",
    author: "",
    upvotes: 264,
    comments: 67,
    created: 1368120951000,
    url: "https://www.reddit.com/r/Accounting/comments/1e0h9m/finals_only_needed_a_63_for_my_b/",
  });
  for (const p of all) {
    assert.match(p.url, /^https:\/\/www\.reddit\.com\/r\/[^/]+\/comments\//);
    assert.ok(p.created >= Date.UTC(2006, 0, 1) && p.created < Date.UTC(2014, 0, 1), `${p.id} created ${p.created}`);
    assert.ok(p.title.length > 0 && p.subforum.length > 0);
  }
});

test("reddit NDJSON .zst: all 59,874 lines read; CSV and NDJSON give identical posts", { skip }, async () => {
  const lines = Number(
    execFileSync("sh", ["-c", `zstd -dc --long=31 '${REDDIT_ZST}' | wc -l`])
      .toString()
      .trim(),
  );
  let count = 0;
  let skipped = 0;
  const ids = new Set<string>();
  const gamedesign = new Map<string, Post>();
  let entityLeft = 0;
  let markdownLinks = 0;
  for await (const item of readFile(REDDIT_ZST)) {
    if (!("post" in item)) {
      skipped += 1;
      continue;
    }
    count += 1;
    ids.add(item.post.id);
    if (/&(amp|lt|gt|quot);/.test(item.post.content)) entityLeft += 1;
    if (/\]\(https?:/.test(item.post.content)) markdownLinks += 1;
    if (item.post.subforum === "gamedesign") gamedesign.set(item.post.id, item.post);
  }
  assert.equal(lines, 59_874);
  assert.equal(skipped, 0);
  assert.equal(count, lines);
  assert.equal(ids.size, lines, "ids are unique");
  // Reddit escapes & < > once; a leftover entity means a user typed one literally, which is rare.
  assert.ok(entityLeft < 20, `${entityLeft} posts still contain HTML entities`);
  assert.ok(markdownLinks < 20, `${markdownLinks} posts still contain markdown links`);
  // The raw CSV of r/gamedesign holds the same posts: both readers must agree exactly.
  const fromCsv = posts(await allItems(path.join(REDDIT_CSV_DIR, "gamedesign.csv")));
  assert.equal(fromCsv.length, 388);
  for (const p of fromCsv) assert.deepEqual(p, gamedesign.get(p.id), `CSV and NDJSON disagree on ${p.id}`);
});

test("reddit CSV: subreddit from the permalink, url made https, row counts match STATS.txt", { skip }, async () => {
  const first = posts(await firstItems(path.join(REDDIT_CSV_DIR, "startups.csv"), 3))[0]!;
  assert.equal(first.id, "reddit:1gcu20");
  assert.equal(first.subforum, "startups");
  assert.equal(first.created, 1371237018000);
  assert.equal(first.upvotes, 443);
  assert.equal(first.comments, 106);
  assert.equal(
    first.url,
    "https://www.reddit.com/r/startups/comments/1gcu20/if_your_website_requires_this_and_doesnt_let_me/",
  );
  const stats = new Map(
    readFileSync(path.join(CORPORA, "reddit_top2013/STATS.txt"), "utf8")
      .split("\n")
      .slice(2)
      .filter(Boolean)
      .map((l) => l.split("\t"))
      .map(([sub, n]) => [sub!, Number(n)] as const),
  );
  const files = readdirSync(REDDIT_CSV_DIR).filter((f) => f.endsWith(".csv"));
  assert.equal(files.length, stats.size);
  let total = 0;
  for (const file of files) {
    const { posts: n, skips } = await countItems(path.join(REDDIT_CSV_DIR, file));
    const sub = file.replace(/\.csv$/, "");
    assert.equal(skips, 0, file);
    assert.equal(n, stats.get(sub), `${file}: ${n} posts, STATS.txt says ${stats.get(sub)}`);
    total += n;
  }
  assert.equal(total, 59_874);
});

test("Hacker News CSV: all 20,099 rows, UTC dates, item URLs", { skip }, async () => {
  const first = posts(await firstItems(HN_CSV, 1))[0]!;
  assert.deepEqual(first, {
    id: "hackernews:12224879",
    source: "hackernews",
    nativeId: "12224879",
    title: "Interactive Dynamic Video",
    content: "",
    subforum: "hackernews",
    author: "ne0phyte",
    upvotes: 386,
    comments: 52,
    created: Date.UTC(2016, 7, 4, 11, 52),
    url: "https://news.ycombinator.com/item?id=12224879",
  });
  const { posts: n, skips, ids } = await countItems(HN_CSV);
  assert.equal(newlines(HN_CSV) - 1, 20_099, "independent count: lines minus the header");
  assert.equal(n, 20_099);
  assert.equal(skips, 0);
  assert.equal(ids.size, 20_099);
});

test("Stack Exchange JSONL: both archives, markdown and HTML bodies to text, archive URLs", { skip }, async () => {
  const first = posts(await firstItems(path.join(SE_DIR, "onstartups_questions.jsonl"), 1))[0]!;
  assert.equal(first.id, "stackexchange:onstartups:1");
  assert.equal(first.subforum, "onstartups");
  assert.equal(first.author, "Jason");
  assert.equal(first.created, Date.UTC(2009, 9, 7));
  assert.equal(
    first.url,
    "https://collapsed-stacks.github.io/onstartups/questions/1/how-do-i-know-if-i-m-cut-out-to-run-my-own-business",
  );
  assert.match(first.content, /^It sounds like fun to start a company/);
  for (const [file, expected] of [
    ["onstartups_questions.jsonl", 9_925],
    ["startups_se_questions.jsonl", 3_014],
  ] as const) {
    const full = path.join(SE_DIR, file);
    assert.equal(newlines(full), expected, `independent count of ${file}`);
    // Raw bodies carrying the archive's "no answers" notice, counted on the JSON text itself.
    const footers = readFileSync(full, "utf8")
      .split("\n")
      .filter(
        (l) =>
          l.includes('"body": "') &&
          /There were no answers to this question\.(\\n)+---(\\n)+All content is licensed under [^"]*"/.test(l),
      ).length;
    assert.ok(footers > 100, `${file}: expected the archive's notice in many raw bodies, found ${footers}`);
    let n = 0;
    let html = 0;
    let noUrl = 0;
    let notice = 0;
    for await (const item of readFile(full)) {
      assert.ok("post" in item, `${file}: unexpected skip ${JSON.stringify(item)}`);
      n += 1;
      if (/<\/?(p|a|code|pre)\b[^>]*>/.test(item.post.content)) html += 1;
      if (!item.post.url.startsWith("https://collapsed-stacks.github.io/")) noUrl += 1;
      if (
        /There were no answers to this question|All content is licensed under|No Answers\s*$|Possible Duplicate:|automatically inserted text/i.test(
          item.post.content,
        )
      )
        notice += 1;
    }
    assert.equal(n, expected);
    assert.equal(html, 0, `${file}: HTML tags left in ${html} bodies`);
    assert.equal(noUrl, 0);
    assert.equal(
      notice,
      0,
      `${file}: the site's or the archive's furniture left in ${notice} bodies (${footers} raw bodies had the notice)`,
    );
  }
});
