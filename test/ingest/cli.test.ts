/**
 * `threadsight ingest` end to end in a child process (real sentence encoder, real LanceDB in a
 * temp THREADSIGHT_DATA_DIR): usage errors exit 2, skipped records exit 3 with a summary by
 * reason, an unreadable input exits 1 while the other files still ingest. Plus the progress
 * display, driven with a recording stream and a fake clock.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { connect } from "@lancedb/lancedb";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { announceReader } from "../../src/index/lancedb/readers.js";
import { createProgress } from "../../src/ingest/progress.js";
import { runIngestCli } from "./spawn-cli.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => runIngestCli(args, path.join(dir, "data"));

const post = (id: string, title: string): string =>
  JSON.stringify({
    id,
    subreddit: "smallbusiness",
    title,
    selftext: "",
    score: 1,
    num_comments: 0,
    created_utc: 1371237018,
    permalink: `/r/smallbusiness/comments/${id}/x/`,
  });

test("usage errors exit 2 with the reason", async () => {
  const file = path.join(dir, "x.ndjson");
  writeFileSync(file, post("u1", "Hello") + "\n");
  for (const [args, message] of [
    [[], /at least one file/],
    [[file, "--batch-size", "0"], /--batch-size must be a whole number between 1 and 10000, got "0"/],
    [[file, "--format", "xml"], /--format must be one of/],
    [[file, "--map", "title=headline"], /--map must name id, created/],
    [[file, "--defer-indexing", "--live-indexing"], /give --defer-indexing or --live-indexing, not both/],
    [[path.join(dir, "missing.csv")], /no such file or directory/],
  ] as const) {
    const run = await cli([...args]);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});

test("--defer-indexing and --live-indexing: refused with Weaviate (exit 2); on the embedded index every post is indexed when the run ends", async () => {
  const file = path.join(dir, "defer.ndjson");
  writeFileSync(
    file,
    [post("d1", "Looking for a CRM for a two-person agency"), post("d2", "How do you invoice retainers?")].join("\n") +
      "\n",
  );
  const refused = await runIngestCli([file, "--defer-indexing"], path.join(dir, "defer-w"), {
    env: { WEAVIATE_URL: "http://127.0.0.1:9" },
  });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /--defer-indexing applies to the embedded index; Weaviate \(WEAVIATE_URL\) indexes each post as it is written/,
  );
  const refusedLive = await runIngestCli([file, "--live-indexing"], path.join(dir, "defer-w"), {
    env: { WEAVIATE_URL: "http://127.0.0.1:9" },
  });
  assert.equal(refusedLive.code, 2, refusedLive.stderr);
  assert.match(refusedLive.stderr, /--live-indexing applies to the embedded index/);
  const dataDir = path.join(dir, "defer");
  const run = await runIngestCli([file, "--defer-indexing"], dataDir);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /read 2, inserted 2,/);
  assert.match(run.stderr, /index work deferred to the end of the run\)/);
  assert.match(run.stderr, /bringing the indexes up to date/);
  const db = await connect(LanceDbIndex.dirFor(dataDir));
  const table = await db.openTable("posts");
  try {
    assert.equal((await table.indexStats("content_idx"))?.numUnindexedRows, 0);
    assert.equal(await table.countRows(), 2);
  } finally {
    table.close();
    db.close();
  }
});

test("by default the embedded index defers its upkeep while no server reads the data directory, and keeps it current while one does", async () => {
  const dataDir = path.join(dir, "auto");
  const first = path.join(dir, "auto-1.ndjson");
  writeFileSync(first, post("e1", "Looking for a scheduling app for a salon") + "\n");
  const alone = await runIngestCli([first], dataDir);
  assert.equal(alone.code, 0, alone.stderr);
  assert.match(
    alone.stderr,
    /no server reads this data directory: index work deferred to the end of the run, or until one starts/,
  );
  // A live process's mark, as `threadsight serve` leaves one (this test process stands in for it).
  const withdraw = announceReader(LanceDbIndex.dirFor(dataDir));
  try {
    const second = path.join(dir, "auto-2.ndjson");
    writeFileSync(second, post("e2", "Which invoicing tool handles retainers?") + "\n");
    const served = await runIngestCli([second], dataDir);
    assert.equal(served.code, 0, served.stderr);
    assert.match(served.stderr, /a server reads this data directory: indexes kept up to date while writing/);
  } finally {
    withdraw();
  }
});

test("a directory with a bad line exits 3; an unreadable file exits 1 and the rest still ingests", async () => {
  const input = path.join(dir, "in");
  mkdirSync(input);
  writeFileSync(
    path.join(input, "a.ndjson"),
    [post("c1", "Looking for a bookkeeping tool"), "{oops", post("c2", "How do you price consulting?")].join("\n") +
      "\n",
  );
  writeFileSync(path.join(input, "notes.txt"), "ignored: not an input extension");
  const skipped = await cli([input]);
  assert.equal(skipped.code, 3, skipped.stderr);
  assert.match(skipped.stderr, /a\.ndjson:2: skipped \(bad_json\)/);
  assert.match(
    skipped.stdout,
    /ingest summary: read 3, inserted 2, updated 0, unchanged 0, failed 0, skipped 1 \(bad_json 1\)/,
  );
  // The same directory again, one post edited: only that one is written.
  writeFileSync(
    path.join(input, "a.ndjson"),
    [post("c1", "Looking for a bookkeeping tool"), "{oops", post("c2", "How do you price consulting work?")].join(
      "\n",
    ) + "\n",
  );
  const again = await cli([input]);
  assert.equal(again.code, 3, again.stderr);
  assert.match(
    again.stdout,
    /ingest summary: read 3, inserted 0, updated 1, unchanged 1, failed 0, skipped 1 \(bad_json 1\)/,
  );

  const unknown = path.join(dir, "mystery.jsonl");
  writeFileSync(unknown, JSON.stringify({ foo: 1 }) + "\n");
  const good = path.join(dir, "b.ndjson");
  writeFileSync(good, post("c3", "Best POS system for a cafe?") + "\n");
  const failed = await cli([unknown, good]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /mystery\.jsonl: .*match no known format.*--format/);
  assert.match(failed.stdout, /read 1, inserted 1,/);

  // A file named as the post model loads with no flag; ids take the default source.
  const own = path.join(dir, "own.jsonl");
  writeFileSync(
    own,
    JSON.stringify({
      id: "o1",
      title: "Which CRM for a two-person agency?",
      content: "We outgrew spreadsheets.",
      created: "2024-05-01",
    }) + "\n",
  );
  const loaded = await cli([own]);
  assert.equal(loaded.code, 0, loaded.stderr);
  assert.match(loaded.stderr + loaded.stdout, /own\.jsonl \[jsonl\]: read 1, inserted 1,/);
});

test("an empty input (nothing, blank lines or a byte-order mark) reads as no records and fails nothing", async () => {
  const empty = path.join(dir, "nothing-new.ndjson");
  writeFileSync(empty, "");
  const blank = path.join(dir, "blank.csv");
  writeFileSync(blank, "\uFEFF\n  \r\n");
  const good = path.join(dir, "after-empty.ndjson");
  writeFileSync(good, post("e9", "Which booking tool for a yoga studio?") + "\n");
  const run = await cli([empty, blank, good]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /nothing-new\.ndjson: empty; nothing to read/);
  assert.match(run.stderr + run.stdout, /blank\.csv \[empty\]: read 0, inserted 0,/);
  assert.match(run.stdout, /ingest summary: read 1, inserted 1,/);
});

test("SIGINT stops the run with exit 1, counts what was written, and the rerun resumes", async () => {
  const file = path.join(dir, "many.ndjson");
  writeFileSync(
    file,
    Array.from({ length: 400 }, (_, i) =>
      post(`s${i}`, `Question ${i}: which invoicing tool suits a ${i % 2 ? "bakery" : "design studio"}?`),
    ).join("\n") + "\n",
  );
  const dataDir = path.join(dir, "data-sigint");
  const checkpointDir = path.join(dataDir, "ingest-checkpoints");
  const written = (): boolean =>
    existsSync(checkpointDir) && readdirSync(checkpointDir).some((f) => f.endsWith(".json"));
  const stopped = await runIngestCli([file, "--batch-size", "50"], dataDir, {
    killWhen: written,
    killSignal: "SIGINT",
  });
  assert.equal(stopped.code, 1, stopped.stderr);
  assert.match(stopped.stderr, /SIGINT received; stopping .*rerun the same command to resume/);
  const inserted = Number(/inserted (\d+)/.exec(stopped.stdout)?.[1]);
  assert.ok(inserted >= 50 && inserted < 400, `summary counts the batches written before the stop: ${stopped.stdout}`);
  const resumed = await runIngestCli([file, "--batch-size", "50"], dataDir);
  assert.equal(resumed.code, 0, resumed.stderr);
  // A batch written but not yet checkpointed when the stop came is read again, and stored as it was.
  assert.match(resumed.stdout, /read 400, inserted 400, updated 0, unchanged \d+, failed 0, skipped 0/);
});

test("progress: a redrawn bar with rate and ETA on a TTY, periodic lines otherwise", () => {
  let clock = 0;
  const writes: string[] = [];
  const tty = { isTTY: true, columns: 200, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  const bar = createProgress({ stream: tty, now: () => clock });
  const snap = { file: "/data/dump.zst", fileIndex: 1, fileCount: 2, size: 1000, skipped: 0 };
  bar.update({ ...snap, bytesRead: 0, posts: 0 });
  clock = 10_000;
  bar.update({ ...snap, bytesRead: 250, posts: 500 });
  assert.match(
    writes.at(-1)!,
    /^\r\x1b\[2K\[1\/2\] \/data\/dump\.zst \[######------------------\] {2}25\.0% 500 posts, 50\.0\/s, 0 skipped, file ETA 30s$/,
  );
  clock = 10_100;
  bar.update({ ...snap, bytesRead: 300, posts: 600 });
  assert.equal(writes.length, 2, "redraws at most every 200 ms");
  bar.done();
  assert.equal(writes.at(-1), "\r\x1b[2K");

  const lines: string[] = [];
  const log = { isTTY: false, write: (s: string) => lines.push(s) > 0 } as unknown as NodeJS.WriteStream;
  clock = 0;
  const plain = createProgress({ stream: log, now: () => clock, intervalMs: 5000 });
  plain.update({ ...snap, bytesRead: 0, posts: 0 });
  clock = 4000;
  plain.update({ ...snap, bytesRead: 100, posts: 10 });
  clock = 6000;
  plain.update({ ...snap, bytesRead: 500, posts: 300 });
  assert.equal(lines.length, 2, "one line at the start, then one per interval");
  assert.equal(lines[1], "ingest: [1/2] /data/dump.zst 50.0% read, 300 posts, 50.0/s, 0 skipped, file ETA 6s\n");
});
