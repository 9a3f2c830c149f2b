/**
 * The ingest pipeline with the real sentence encoder and the in-memory index double
 * (memory-index.ts): counts and skips, what gets stored, --limit and resuming from the
 * checkpoint, re-ingest as update, refused ids, a failing write, and embedding overlapping the
 * writes.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { RollupMaintainingIndex } from "../../src/index/rollup-index.js";
import type { InputIdentity } from "../../src/ingest/checkpoint.js";
import { CheckpointStore, inputIdentity } from "../../src/ingest/checkpoint.js";
import { FormatDetectionError } from "../../src/ingest/detect-format.js";
import type { IngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { IngestDeps } from "../../src/ingest/pipeline.js";
import { EMBED_PART, ingestFile, ingestPosts } from "../../src/ingest/pipeline.js";
import type { Post } from "../../src/model/post.js";
import type { RollupWriter } from "../../src/topics/rollup.js";
import { encoderFixture } from "./encoder-fixture.js";
import { MemoryIndex } from "./memory-index.js";

let embedder: UseEmbedder;
let enricher: IngestEnricher;
const dir = encoderFixture("threadsight-pipeline-", (f) => ({ embedder, enricher } = f)).dir;

const TOPICS = [
  "hiring a first engineer",
  "pricing a SaaS plan",
  "filing quarterly taxes",
  "finding beta users",
  "choosing a CRM",
];

/** 25 posts with 3 bad lines among them (lines 4, 11, 20). */
function writeDump(name: string): string {
  const lines: string[] = [];
  let n = 0;
  for (let line = 1; line <= 28; line += 1) {
    if (line === 4) lines.push("{broken");
    else if (line === 11) lines.push(JSON.stringify({ id: "nt", subreddit: "x", title: "", created_utc: 1371237018 }));
    else if (line === 20) lines.push(JSON.stringify({ id: "nd", subreddit: "x", title: "No date" }));
    else {
      n += 1;
      const title =
        n === 1
          ? "I love this amazing community, thank you all!"
          : n === 2
            ? "This is a terrible, awful scam and I hate it"
            : `Question ${n} about ${TOPICS[n % TOPICS.length]}`;
      lines.push(
        JSON.stringify({
          id: `p${n}`,
          subreddit: "startups",
          title,
          selftext: `Details for post ${n}.`,
          score: n,
          num_comments: 1,
          created_utc: 1371237018 + n,
          permalink: `/r/startups/comments/p${n}/x/`,
        }),
      );
    }
  }
  const file = path.join(dir, name);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

function deps(index: MemoryIndex, dataDir: string, log: string[], emb: Embedder = embedder): IngestDeps {
  return { index, embedder: emb, enricher, checkpoints: new CheckpointStore(dataDir), log: (l) => log.push(l) };
}

async function openIndex(): Promise<MemoryIndex> {
  const index = new MemoryIndex();
  await index.open(embedder.model, embedder.dimensions);
  return index;
}

test("ingests a file: counts, skips logged with file:line, enriched posts with their vectors", async () => {
  const file = writeDump("a.ndjson");
  const index = await openIndex();
  const log: string[] = [];
  const dataDir = path.join(dir, "data-a");
  const result = await ingestFile(file, { batchSize: 4 }, deps(index, dataDir, log));
  assert.equal(result.format, "reddit-ndjson");
  assert.equal(result.complete, true);
  assert.deepEqual(
    {
      read: result.stats.read,
      inserted: result.stats.inserted,
      updated: result.stats.updated,
      failed: result.stats.failed,
    },
    { read: 28, inserted: 25, updated: 0, failed: 0 },
  );
  assert.equal(result.stats.skipped.bad_json, 1);
  assert.equal(result.stats.skipped.missing_title, 1);
  assert.equal(result.stats.skipped.bad_date, 1);
  assert.deepEqual(
    log.map((l) => l.replace(file, "FILE").replace(/\): .*$/, ")")),
    ["FILE:4: skipped (bad_json)", "FILE:11: skipped (missing_title)", "FILE:20: skipped (bad_date)"],
  );
  assert.equal(index.rows.size, 25);
  const happy = index.rows.get("reddit:p1")!;
  const angry = index.rows.get("reddit:p2")!;
  assert.equal(happy.sentiment, "positive");
  assert.ok(happy.sentimentScore >= 0.05);
  assert.equal(angry.sentiment, "negative");
  assert.equal(happy.leadType, "");
  assert.equal(happy.topicId, "");
  const [expected] = await embedder.embed([postEmbeddingText(happy)]);
  const dot = happy.vector.reduce((s, x, i) => s + x * expected![i]!, 0);
  assert.ok(dot > 0.999, `stored vector is the post's embedding (${dot})`);
  assert.deepEqual(readdirSync(path.join(dataDir, "ingest-checkpoints")), [], "a finished file leaves no checkpoint");
});

test("--limit stops early and keeps the place; the next run resumes; re-ingesting updates", async () => {
  const file = writeDump("b.ndjson");
  const index = await openIndex();
  const dataDir = path.join(dir, "data-b");
  const log: string[] = [];
  const first = await ingestFile(file, { batchSize: 4, limit: 10 }, deps(index, dataDir, log));
  assert.equal(first.complete, false);
  assert.equal(first.postsThisRun, 10);
  assert.equal(index.rows.size, 10);
  const checkpoint = await new CheckpointStore(dataDir).load(await fileIdentity(file));
  assert.equal(checkpoint?.records, 12, "10 posts and the bad lines 4 and 11");
  const second = await ingestFile(file, { batchSize: 4 }, deps(index, dataDir, log));
  assert.equal(second.resumedFrom, 12);
  assert.equal(second.postsThisRun, 15);
  assert.equal(second.complete, true);
  assert.equal(second.stats.read, 28, "counts cover both runs");
  assert.equal(second.stats.inserted, 25);
  assert.equal(index.rows.size, 25);
  assert.ok(log.some((l) => l.includes("resuming after record 12")));
  const again = await ingestFile(file, { batchSize: 8 }, deps(index, dataDir, log));
  assert.equal(again.resumedFrom, 0);
  assert.equal(again.stats.inserted, 0);
  assert.equal(again.stats.updated, 25);
  assert.equal(index.rows.size, 25);
});

test("re-ingesting embeds only posts whose text changed; identical posts are not written", async () => {
  const file = writeDump("again.ndjson");
  const inner = await openIndex();
  const noRollups: RollupWriter = {
    open: async () => undefined,
    close: async () => undefined,
    recordUpsert: async () => undefined,
  };
  const index = new RollupMaintainingIndex(inner, noRollups);
  await index.open(embedder.model, embedder.dimensions);
  const texts: string[] = [];
  const counting: Embedder = {
    ...embedder,
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => undefined,
    embed: (t, signal) => (texts.push(...t), embedder.embed(t, signal)),
  };
  const run = (input: string, data: string) =>
    ingestFile(input, { batchSize: 8 }, { ...deps(inner, path.join(dir, data), []), index, embedder: counting });
  const first = await run(file, "data-again");
  assert.equal(first.stats.inserted, 25);
  assert.equal(texts.length, 25);
  const stored = new Map([...inner.rows].map(([id, row]) => [id, row]));

  texts.length = 0;
  const same = await run(file, "data-again");
  assert.deepEqual([same.stats.inserted, same.stats.updated, same.stats.unchanged], [0, 0, 25]);
  assert.deepEqual(texts, [], "nothing embedded");
  for (const [id, row] of inner.rows) assert.equal(row, stored.get(id), `${id} not rewritten`);

  // p3 gets a new title (its text changes), p5 a new score (its text does not).
  const edited = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => {
      if (line.includes('"id":"p3"'))
        return line.replace(/"title":"[^"]*"/, '"title":"Which payroll service for a team of four?"');
      if (line.includes('"id":"p5"')) return line.replace('"score":5,', '"score":500,');
      return line;
    });
  const changed = path.join(dir, "again-edited.ndjson");
  writeFileSync(changed, edited.join("\n"));
  texts.length = 0;
  const third = await run(changed, "data-again");
  assert.deepEqual([third.stats.inserted, third.stats.updated, third.stats.unchanged], [0, 2, 23]);
  assert.deepEqual(texts, ["Which payroll service for a team of four? Details for post 3."]);
  const p5 = inner.rows.get("reddit:p5")!;
  assert.equal(p5.upvotes, 500);
  assert.deepEqual(p5.vector, stored.get("reddit:p5")!.vector, "p5 keeps its stored vector");
  const [expected] = await embedder.embed([texts[0]!]);
  assert.deepEqual(inner.rows.get("reddit:p3")!.vector, expected);
});

test("a redeployed identical file (new mtime, new path) resumes; a changed one starts afresh", async () => {
  const file = writeDump("g.ndjson");
  const index = await openIndex();
  const dataDir = path.join(dir, "data-g");
  const log: string[] = [];
  await ingestFile(file, { batchSize: 4, limit: 10 }, deps(index, dataDir, log));
  const copy = path.join(dir, "g-redeployed.ndjson");
  copyFileSync(file, copy);
  utimesSync(copy, new Date(), new Date(Date.now() + 60_000));
  const resumed = await ingestFile(copy, { batchSize: 4, limit: 4 }, deps(index, dataDir, log));
  assert.equal(resumed.resumedFrom, 12, "the copy carries on after the original's 12 records");
  const changed = path.join(dir, "g-changed.ndjson");
  writeFileSync(changed, readFileSync(copy, "utf8").replace("Question 5", "Question V"));
  const restarted = await ingestFile(changed, { batchSize: 4 }, deps(index, dataDir, log));
  assert.equal(restarted.resumedFrom, 0, "a file with other bytes has no checkpoint");
  assert.equal(restarted.stats.read, 28);
});

test("refused ids are counted and logged; a failing write stops the file at the last good checkpoint", async () => {
  const file = writeDump("c.ndjson");
  const index = await openIndex();
  index.refuse.add("reddit:p5");
  const dataDir = path.join(dir, "data-c");
  const log: string[] = [];
  const result = await ingestFile(file, { batchSize: 5 }, deps(index, dataDir, log));
  assert.equal(result.stats.failed, 1);
  assert.equal(result.stats.inserted, 24);
  assert.ok(log.some((l) => l.endsWith("index rejected reddit:p5: refused by test")));

  const file2 = writeDump("d.ndjson");
  const index2 = await openIndex();
  let writes = 0;
  const failing = new Proxy(index2, {
    get(target, prop, receiver) {
      if (prop === "upsert") {
        return async (...args: Parameters<MemoryIndex["upsert"]>) => {
          writes += 1;
          if (writes === 3) throw new Error("disk full");
          return target.upsert(...args);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  await assert.rejects(ingestFile(file2, { batchSize: 5 }, deps(failing, dataDir, log)), /disk full/);
  const checkpoint = await new CheckpointStore(dataDir).load(await fileIdentity(file2));
  assert.equal(index2.rows.size, 10);
  assert.ok(
    checkpoint !== undefined && checkpoint.stats.inserted === 10,
    `checkpoint after the two good batches: ${JSON.stringify(checkpoint?.stats)}`,
  );
  const resumed = await ingestFile(file2, { batchSize: 5 }, deps(index2, dataDir, log));
  assert.equal(resumed.stats.inserted, 25);
  assert.equal(index2.rows.size, 25);
});

test("the next batch is handed to the embedder before the previous one is written", async () => {
  const file = writeDump("e.ndjson");
  const index = await openIndex();
  let active = 0;
  let maxActive = 0;
  let overlapped = 0;
  const watching: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => undefined,
    embed: async (texts, signal) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      try {
        const vectors = await embedder.embed(texts, signal);
        // Three short texts embed in a few ms, about as fast as the in-memory write, so whether
        // a write met an embedding in flight was a race on a busy machine (CI saw 4 of 9). Held
        // a little longer, as a real batch takes, the overlap the pipeline arranges shows alike.
        await new Promise((r) => setTimeout(r, 25));
        return vectors;
      } finally {
        active -= 1;
      }
    },
  };
  const realUpsert = index.upsert.bind(index);
  index.upsert = async (posts) => {
    if (active > 0) overlapped += 1;
    return realUpsert(posts);
  };
  const result = await ingestFile(file, { batchSize: 3 }, deps(index, path.join(dir, "data-e"), [], watching));
  assert.equal(result.stats.inserted, 25);
  assert.ok(maxActive >= 2, `embedding calls in flight at once: ${maxActive}`);
  assert.ok(overlapped >= index.upserts / 2, `writes that overlapped an embedding: ${overlapped} of ${index.upserts}`);
});

test("a batch is embedded in parts, longest first, each enriched while later parts embed; rows keep input order", async () => {
  // 150 posts of varied length in one batch: three parts of <= EMBED_PART.
  const lines = Array.from({ length: 150 }, (_, i) =>
    JSON.stringify({
      id: `q${i}`,
      subreddit: "startups",
      title: `Post ${i} about ${TOPICS[i % TOPICS.length]}`,
      selftext: "detail ".repeat((i * 37) % 90),
      score: i,
      num_comments: 0,
      created_utc: 1371237018 + i,
      permalink: `/r/startups/comments/q${i}/x/`,
    }),
  );
  const file = path.join(dir, "parts.ndjson");
  writeFileSync(file, lines.join("\n") + "\n");
  const index = await openIndex();
  const events: string[] = [];
  const calls: string[][] = [];
  const watching: Embedder = {
    model: embedder.model,
    dimensions: embedder.dimensions,
    close: async () => undefined,
    embed: async (texts, signal) => {
      const n = calls.push([...texts]);
      const vectors = await embedder.embed(texts, signal);
      events.push(`embedded ${n}`);
      return vectors;
    },
  };
  const enriching: IngestEnricher = {
    close: async () => undefined,
    enrich: async (posts, vectors) => {
      events.push(`enrich ${posts.length}`);
      return enricher.enrich(posts, vectors);
    },
  };
  const result = await ingestFile(
    file,
    { batchSize: 150 },
    { ...deps(index, path.join(dir, "data-parts"), [], watching), enricher: enriching },
  );
  assert.equal(result.stats.inserted, 150);
  assert.deepEqual(
    calls.map((c) => c.length),
    [EMBED_PART, EMBED_PART, 150 - 2 * EMBED_PART],
  );
  const lengths = calls.flat().map((t) => t.length);
  assert.deepEqual(
    lengths,
    [...lengths].sort((a, b) => b - a),
    "parts go longest first",
  );
  assert.ok(
    events.indexOf("enrich 64") < events.indexOf("embedded 3"),
    `the first part is enriched before the last is embedded: ${events.join(", ")}`,
  );
  for (const i of [0, 17, 149]) {
    const row = index.rows.get(`reddit:q${i}`)!;
    const [expected] = await embedder.embed([postEmbeddingText(row)]);
    assert.ok(row.vector.reduce((s, x, k) => s + x * expected![k]!, 0) > 0.999, `post ${i} stored with its own vector`);
  }
});

test("an input whose format cannot be told fails clearly and leaves no zstd child running", async () => {
  const file = path.join(dir, "mystery.jsonl.zst");
  writeFileSync(
    file,
    execFileSync("zstd", ["-q", "-c", "--long=31"], { input: `${JSON.stringify({ foo: 1 })}\n`.repeat(50_000) }),
  );
  const index = await openIndex();
  await assert.rejects(
    ingestFile(file, { batchSize: 4 }, deps(index, path.join(dir, "data-f"), [])),
    (err: Error) => err instanceof FormatDetectionError && /--format/.test(err.message),
  );
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(
    !process.getActiveResourcesInfo().includes("ProcessWrap"),
    `still running: ${process.getActiveResourcesInfo().join(", ")}`,
  );
});

test("a stop signal shared by a batch's many embed calls raises no 'possible memory leak' warning, and still stops the run", async () => {
  // One batch of 11 parts: 11 embed calls listening to the run's signal at once, one past Node's
  // default of 10 listeners (a 1,024-post batch, the CLI's default, is 16).
  const posts = 11 * EMBED_PART;
  const file = path.join(dir, "many-parts.ndjson");
  const line = (i: number): string =>
    JSON.stringify({
      id: `m${i}`,
      subreddit: "startups",
      title: `Post ${i} about ${TOPICS[i % TOPICS.length]}`,
      selftext: "",
      score: 1,
      num_comments: 0,
      created_utc: 1371237018 + i,
    });
  writeFileSync(file, Array.from({ length: posts }, (_, i) => line(i)).join("\n") + "\n");
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  process.on("warning", onWarning);
  try {
    const index = await openIndex();
    const controller = new AbortController();
    const result = await ingestFile(
      file,
      { batchSize: posts, signal: controller.signal },
      deps(index, path.join(dir, "data-listeners"), []),
    );
    assert.equal(result.stats.inserted, posts);
    await new Promise((r) => setTimeout(r, 50)); // warnings are emitted on a later tick
    assert.deepEqual(
      warnings.map((w) => `${w.name}: ${w.message}`),
      [],
    );
    // The run's own signal still follows the caller's.
    const stopped = new AbortController();
    stopped.abort(new Error("stop now"));
    await assert.rejects(
      ingestFile(
        file,
        { batchSize: posts, signal: stopped.signal },
        deps(await openIndex(), path.join(dir, "data-listeners-2"), []),
      ),
      /stop now/,
    );
  } finally {
    process.off("warning", onWarning);
  }
});

function fileIdentity(file: string): Promise<InputIdentity> {
  assert.ok(existsSync(file));
  return inputIdentity(file);
}

test("every write tells the upsert observer, file batches and live posts alike, refused rows left out", async () => {
  const index = await openIndex();
  index.refuse.add("reddit:p5");
  const seen: { ids: string[]; origin: string }[] = [];
  const upserted = async (rows: readonly { id: string }[], origin: string): Promise<void> => {
    seen.push({ ids: rows.map((r) => r.id), origin });
  };
  const dataDir = path.join(dir, "data-observer");
  await ingestFile(writeDump("obs.ndjson"), { batchSize: 10 }, { ...deps(index, dataDir, []), upserted });
  const fromFile = seen.flatMap((s) => s.ids);
  assert.equal(fromFile.length, 24, "the 24 rows the index took");
  assert.ok(!fromFile.includes("reddit:p5"), "a refused row is not reported");
  assert.ok(seen.every((s) => s.origin === "ingest"));

  // A live poll writes through ingestPosts: the same observer sees its posts, as "sync".
  seen.length = 0;
  const live: Post = {
    id: "reddit:live1",
    source: "reddit",
    nativeId: "live1",
    subforum: "startups",
    title: "Looking for a CRM for a small team",
    content: "Which one do you use?",
    author: "someone",
    upvotes: 3,
    comments: 1,
    created: 1371237018_000,
    url: "https://www.reddit.com/r/startups/comments/live1/x/",
  };
  const result = await ingestPosts([live], { index, embedder, enricher, upserted, origin: "sync" });
  assert.equal(result.inserted, 1);
  assert.deepEqual(seen, [{ ids: ["reddit:live1"], origin: "sync" }]);
});
