/**
 * Several files through one pipeline (ingest-files.ts) with the real sentence encoder and the
 * in-memory index double: the next file is embedded while the previous one is still being
 * written, yet writes and reports keep input order; limits over the run and per file; a file
 * that cannot be read or written is reported in its place while the others ingest; an abort
 * stops the run with the error of the file it cut short.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Embedder } from "../../src/enrich/embedder.js";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { CheckpointStore } from "../../src/ingest/checkpoint.js";
import { FormatDetectionError } from "../../src/ingest/detect-format.js";
import type { IngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { FileOutcome } from "../../src/ingest/ingest-files.js";
import { ingestFiles } from "../../src/ingest/ingest-files.js";
import type { IngestDeps } from "../../src/ingest/pipeline.js";
import { beginIngestFile, IngestFileError } from "../../src/ingest/pipeline.js";
import { encoderFixture } from "./encoder-fixture.js";
import { MemoryIndex } from "./memory-index.js";

let embedder: UseEmbedder;
let enricher: IngestEnricher;
const dir = encoderFixture("threadsight-files-", (f) => ({ embedder, enricher } = f)).dir;

/** A Reddit dump of `count` posts with ids `<prefix>1..`. */
function dump(name: string, prefix: string, count: number): string {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `${prefix}${i + 1}`,
      subreddit: "startups",
      title: `Post ${i + 1} of ${name}: which accounting tool for a small agency?`,
      selftext: "",
      score: i,
      num_comments: 0,
      created_utc: 1371237018 + i,
      permalink: `/r/startups/comments/${prefix}${i + 1}/x/`,
    }),
  );
  const file = path.join(dir, name);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

async function openIndex(): Promise<MemoryIndex> {
  const index = new MemoryIndex();
  await index.open(embedder.model, embedder.dimensions);
  return index;
}

function deps(index: MemoryIndex, dataDir: string, emb: Embedder = embedder): IngestDeps {
  return {
    index,
    embedder: emb,
    enricher,
    checkpoints: new CheckpointStore(path.join(dir, dataDir)),
    log: () => undefined,
  };
}

/** Ids of what `outcomes` say, in report order: "file:inserted" or "file:error". */
const summary = (outcomes: readonly FileOutcome[]): string[] =>
  outcomes.map((o) => `${path.basename(o.file)}:${"result" in o ? o.result.stats.inserted : "error"}`);

test("the next file is embedded before the previous one is written; writes and reports keep input order", async () => {
  const empty = path.join(dir, "empty.ndjson");
  writeFileSync(empty, "\n");
  const files = [dump("a.ndjson", "a", 7), empty, dump("b.ndjson", "b", 5), dump("c.ndjson", "c", 6)];
  const index = await openIndex();
  const events: string[] = [];
  // The first file's vectors are held until the next embedding starts (5 s at most), so a
  // pipeline that waited for a file's writes before opening the next would show it in `events`.
  let nextStarted: () => void = () => undefined;
  const next = new Promise<void>((resolve) => {
    nextStarted = resolve;
    setTimeout(resolve, 5_000).unref();
  });
  let calls = 0;
  const watching: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => undefined,
    embed: async (texts, signal) => {
      calls += 1;
      events.push(`embed ${texts[0]!.split(" ")[3]}`);
      if (calls > 1) nextStarted();
      const vectors = await embedder.embed(texts, signal);
      if (calls === 1) await next;
      return vectors;
    },
  };
  const written: string[] = [];
  const upsert = index.upsert.bind(index);
  index.upsert = async (posts) => {
    events.push(`write ${posts[0]!.id}`);
    written.push(...posts.map((p) => p.id));
    return upsert(posts);
  };
  const outcomes: FileOutcome[] = [];
  await ingestFiles(files, { batchSize: 10 }, deps(index, "data-a", watching), (o) => outcomes.push(o));
  assert.deepEqual(summary(outcomes), ["a.ndjson:7", "empty.ndjson:0", "b.ndjson:5", "c.ndjson:6"]);
  assert.deepEqual(
    written,
    ["a", "b", "c"].flatMap((p, f) => Array.from({ length: [7, 5, 6][f]! }, (_, i) => `reddit:${p}${i + 1}`)),
  );
  assert.deepEqual(events.slice(0, 2), ["embed a.ndjson:", "embed b.ndjson:"], events.join(", "));
  assert.deepEqual(
    events.filter((e) => e.startsWith("write")),
    ["write reddit:a1", "write reddit:b1", "write reddit:c1"],
  );
  assert.equal(index.rows.size, 18);
  assert.ok(
    [...index.rows.values()].every((p) => p.vector.length === embedder.dimensions && p.sentiment !== undefined),
  );
});

test("limits: over the run, and per file; the checkpoints keep each file's place", async () => {
  const files = [dump("l1.ndjson", "l", 6), dump("m1.ndjson", "m", 6), dump("n1.ndjson", "n", 6)];
  const index = await openIndex();
  const outcomes: FileOutcome[] = [];
  await ingestFiles(files, { batchSize: 4, limit: 8 }, deps(index, "data-l"), (o) => outcomes.push(o));
  assert.deepEqual(summary(outcomes), ["l1.ndjson:6", "m1.ndjson:2"]);
  assert.ok("result" in outcomes[1]! && !outcomes[1].result.complete);

  const perFile: FileOutcome[] = [];
  await ingestFiles(files, { batchSize: 4, fileLimit: 3 }, deps(await openIndex(), "data-p"), (o) => perFile.push(o));
  assert.deepEqual(summary(perFile), ["l1.ndjson:3", "m1.ndjson:3", "n1.ndjson:3"]);

  // The rerun re-reads the finished l1 (updates), resumes m1 after its second post and reads
  // n1 whole; a file's counts cover its earlier runs.
  const rerun: FileOutcome[] = [];
  await ingestFiles(files, { batchSize: 4 }, deps(index, "data-l"), (o) => rerun.push(o));
  assert.deepEqual(summary(rerun), ["l1.ndjson:0", "m1.ndjson:6", "n1.ndjson:6"]);
  assert.deepEqual(
    rerun.map((o) => ("result" in o ? [o.result.resumedFrom, o.result.postsThisRun, o.result.stats.updated] : [])),
    [
      [0, 6, 6],
      [2, 4, 0],
      [0, 6, 0],
    ],
  );
  assert.equal(index.rows.size, 18);
});

test("an unreadable file and a failed write are reported in their place; the other files ingest", async () => {
  const unknown = path.join(dir, "mystery.jsonl");
  writeFileSync(unknown, JSON.stringify({ foo: 1 }) + "\n");
  const files = [dump("f1.ndjson", "f", 4), unknown, dump("g1.ndjson", "g", 4), dump("h1.ndjson", "h", 4)];
  const index = await openIndex();
  const upsert = index.upsert.bind(index);
  index.upsert = async (posts) => {
    if (posts.some((p) => p.id === "reddit:g1")) throw new Error("disk full");
    return upsert(posts);
  };
  const outcomes: FileOutcome[] = [];
  await ingestFiles(files, { batchSize: 10 }, deps(index, "data-f"), (o) => outcomes.push(o));
  assert.deepEqual(summary(outcomes), ["f1.ndjson:4", "mystery.jsonl:error", "g1.ndjson:error", "h1.ndjson:4"]);
  assert.ok("error" in outcomes[1]! && outcomes[1].error instanceof FormatDetectionError);
  assert.ok(
    "error" in outcomes[2]! &&
      outcomes[2].error instanceof IngestFileError &&
      /disk full/.test(outcomes[2].error.message),
  );
  assert.equal(index.rows.size, 8);
});

test("an abort stops the run: the files it cut short are reported, then their error is thrown", async () => {
  const files = [dump("s1.ndjson", "s", 30), dump("t1.ndjson", "t", 30), dump("u1.ndjson", "u", 30)];
  const index = await openIndex();
  const controller = new AbortController();
  const upsert = index.upsert.bind(index);
  index.upsert = async (posts) => {
    const r = await upsert(posts);
    if (index.upserts === 2) controller.abort(new Error("interrupted by test"));
    return r;
  };
  const outcomes: FileOutcome[] = [];
  await assert.rejects(
    ingestFiles(files, { batchSize: 5, signal: controller.signal }, deps(index, "data-s"), (o) => outcomes.push(o)),
    (err: Error) => /interrupted by test/.test(err.message),
  );
  assert.ok(
    outcomes.length >= 1 && outcomes.every((o) => "error" in o && o.error instanceof IngestFileError),
    JSON.stringify(summary(outcomes)),
  );
  assert.ok(!outcomes.some((o) => path.basename(o.file) === "u1.ndjson"), "the third file is never opened");
  // What the cut-short files report as written is what the index holds.
  const reported = outcomes.reduce(
    (n, o) => n + ("error" in o && o.error instanceof IngestFileError ? o.error.partial.stats.inserted : 0),
    0,
  );
  assert.equal(index.rows.size, reported);
  assert.ok(reported >= 10 && reported < 60, String(reported));
  // Chunks the abort found already in the workers still run: let them finish (a call queued
  // behind them returns after them) before the fixture closes the workers.
  await embedder.embed(Array.from({ length: 64 }, (_, i) => `drain ${i}`));
});

test("an empty file's result settles after the previous file's, so the files after it still write in order", async () => {
  const empty = path.join(dir, "empty-gate.jsonl");
  writeFileSync(empty, "\uFEFF");
  let release: () => void = () => undefined;
  const previous = new Promise<void>((resolve) => (release = resolve));
  const begun = await beginIngestFile(empty, { batchSize: 4 }, deps(await openIndex(), "data-empty"), previous);
  let settled = false;
  void begun.result.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(settled, false, "waits for the previous file");
  release();
  const result = await begun.result;
  assert.deepEqual([result.format, result.stats.read, result.complete], ["empty", 0, true]);
});
