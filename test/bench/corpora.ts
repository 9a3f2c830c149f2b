/**
 * The four real corpora the ingest benchmark loads, how to count their rows without our readers
 * (zstd CLI for the Reddit dump, line counts for JSON Lines, csv-parse for the HN CSV), and how
 * to count what each backend holds per corpus, so "everything arrived" is checked, not assumed.
 */
import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { parse } from "csv-parse";
import type { WeaviateClient } from "weaviate-client";
import { Filters } from "weaviate-client";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import { POSTS_TABLE } from "../../src/index/lancedb/schema.js";
import { CORPORA } from "../harness/seed.js";

/** One input file and the posts it yields in the index. */
export interface Corpus {
  /** Short name used in tables and on the command line. */
  name: string;
  /** Path under the corpora folder. */
  file: string;
  /** Index field values that single this corpus out. */
  source: string;
  subforum?: string;
  rowCount(): Promise<number>;
}

function wcLines(file: string, viaZstd: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    // Counted outside Node's decoder: `zstd --long=31` handles the dump's large window.
    const child = viaZstd
      ? spawn("zstd", ["-dc", "--long=31", file], { stdio: ["ignore", "pipe", "inherit"] })
      : undefined;
    const stream = child?.stdout ?? createReadStream(file);
    let lines = 0;
    let last = 10;
    stream.on("data", (buf: Buffer) => {
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
      if (buf.length > 0) last = buf[buf.length - 1]!;
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(lines + (last === 10 ? 0 : 1)));
    child?.on("error", reject);
  });
}

async function csvRecords(file: string): Promise<number> {
  let n = 0;
  for await (const _ of createReadStream(file).pipe(parse({ relax_column_count: true, bom: true }))) n++;
  return n - 1; // header row
}

const at = (rel: string): string => path.join(CORPORA, rel);

/**
 * The four corpora, smallest and quickest first so that a run cut short leaves whole corpora
 * behind (the raw_csv folder repeats the Reddit dump's posts and is not loaded twice).
 */
export const CORPORA_FILES: readonly Corpus[] = [
  {
    name: "startups_se",
    file: "stackexchange_startups/startups_se_questions.jsonl",
    source: "stackexchange",
    subforum: "startups_se",
    rowCount: () => wcLines(at("stackexchange_startups/startups_se_questions.jsonl"), false),
  },
  {
    name: "hackernews",
    file: "hackernews_2015_2016/hacker_news.csv",
    source: "hackernews",
    rowCount: () => csvRecords(at("hackernews_2015_2016/hacker_news.csv")),
  },
  {
    name: "onstartups",
    file: "stackexchange_startups/onstartups_questions.jsonl",
    source: "stackexchange",
    subforum: "onstartups",
    rowCount: () => wcLines(at("stackexchange_startups/onstartups_questions.jsonl"), false),
  },
  {
    name: "reddit",
    file: "reddit_top2013/submissions_top2013.ndjson.zst",
    source: "reddit",
    rowCount: () => wcLines(at("reddit_top2013/submissions_top2013.ndjson.zst"), true),
  },
];

/** Absolute path of a corpus file. */
export function corpusPath(c: Corpus): string {
  return at(c.file);
}

/** Posts of one corpus in an embedded index directory (read-only). */
export async function lanceCount(dataDir: string, c: Corpus): Promise<number> {
  const db = await lancedb.connect(LanceDbIndex.dirFor(dataDir));
  try {
    if (!(await db.tableNames()).includes(POSTS_TABLE)) return 0;
    const table = await db.openTable(POSTS_TABLE);
    const where = `source = '${c.source}'${c.subforum === undefined ? "" : ` AND subforum = '${c.subforum}'`}`;
    const n = await table.countRows(where);
    table.close();
    return n;
  } finally {
    db.close();
  }
}

/** Posts of one corpus in a Weaviate collection. */
export async function weaviateCount(client: WeaviateClient, collection: string, c: Corpus): Promise<number> {
  if (!(await client.collections.exists(collection))) return 0;
  const posts = client.collections.get(collection);
  const bySource = posts.filter.byProperty("source").equal(c.source);
  const filters =
    c.subforum === undefined ? bySource : Filters.and(bySource, posts.filter.byProperty("subforum").equal(c.subforum));
  const res = await posts.aggregate.overAll({ filters });
  return res.totalCount;
}
