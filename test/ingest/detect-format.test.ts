/**
 * Format detection on the real corpora (compressed and not) and on crafted heads, and the
 * message that points at --format when nothing matches.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { DETECT_BYTES, detectFormat, FormatDetectionError } from "../../src/ingest/detect-format.js";
import { openInput, peek } from "../../src/ingest/open-input.js";
import { CORPORA, corporaSkip } from "./corpora.js";

async function detectFile(file: string): Promise<string> {
  const input = await openInput(file);
  const { head, bytes } = await peek(input.bytes, DETECT_BYTES);
  // Drain so a zstd child exits cleanly.
  for await (const _ of bytes) break;
  return detectFormat(path.basename(file).replace(/\.(zst|gz)$/, ""), head);
}

test("the real corpora are detected", { skip: corporaSkip() }, async () => {
  assert.equal(await detectFile(path.join(CORPORA, "reddit_top2013/submissions_top2013.ndjson.zst")), "reddit-ndjson");
  assert.equal(await detectFile(path.join(CORPORA, "reddit_top2013/raw_csv/Accounting.csv")), "reddit-csv");
  assert.equal(await detectFile(path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv")), "hn-csv");
  assert.equal(
    await detectFile(path.join(CORPORA, "stackexchange_startups/startups_se_questions.jsonl")),
    "stackexchange-jsonl",
  );
});

test("crafted heads: listing, HN items, BOM, and --map", () => {
  const b = (s: string): Buffer => Buffer.from(s);
  assert.equal(detectFormat("x.json", b('{\n  "kind": "Listing",\n  "data": {"children": []}\n}')), "reddit-listing");
  assert.equal(detectFormat("x.json", b('{"kind": "Listing", "data": {"children": []}}\n')), "reddit-listing");
  assert.equal(
    detectFormat("x.json", b('{\n  "by": "pg",\n  "id": 1,\n  "time": 1160418111,\n  "type": "story"\n}')),
    "hn-json",
  );
  assert.equal(
    detectFormat("x.jsonl", b('{"by":"pg","id":1,"time":1160418111,"type":"story","title":"Y"}\n')),
    "hn-json",
  );
  assert.equal(detectFormat("x.json", b('[{"by":"pg","id":1,"time":1160418111,"type":"story"}]')), "hn-json");
  assert.equal(
    detectFormat("x.csv", b("\ufeffid,title,url,num_points,num_comments,author,created_at\n1,a,b,1,1,c,1/1/2016 0:00")),
    "hn-csv",
  );
  assert.equal(detectFormat("x.jsonl", b('{"post_id": 1}'), true), "jsonl");
  // The post model's own names need no --map; a Reddit dump with an id and created is still Reddit.
  assert.equal(detectFormat("x.jsonl", b('{"id":"p1","title":"T","content":"c","created":"2020-01-01"}\n')), "jsonl");
  assert.equal(
    detectFormat("x.jsonl", b('{"id":"a1","title":"T","created":1,"created_utc":1,"subreddit":"s"}\n')),
    "reddit-ndjson",
  );
  assert.throws(() => detectFormat("x.jsonl", b('{"id":"p1","title":"T"}\n')), /match no known format/);
});

test("unknown input fails with a message that suggests --format", () => {
  assert.throws(
    () => detectFormat("x.jsonl", Buffer.from('{"foo": 1, "bar": 2}\n')),
    (err: Error) =>
      err instanceof FormatDetectionError && /fields foo, bar/.test(err.message) && /--format/.test(err.message),
  );
  assert.throws(() => detectFormat("x.csv", Buffer.from("a,b,c\n1,2,3\n")), /CSV header \(a,b,c\).*--format/);
  assert.throws(() => detectFormat("empty.jsonl", Buffer.from("  \n")), /is empty/);
});
