/**
 * Hand labels of corpus posts, kept as post ids and accepted values (no post text is stored), and
 * the posts they name read back from the shared corpora with the ingest readers, as ingest reads
 * them. Used by the sections whose labels were written for this project (target product, industry).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { type Format, readerFor } from "../../src/ingest/formats.js";
import { openInput } from "../../src/ingest/open-input.js";
import type { Post } from "../../src/model/post.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { dataPath } from "./shared-data.js";

/** The corpora labelled posts are drawn from, with their ingest formats. */
export const LABELLED_CORPORA: readonly [string, Format][] = [
  ["corpora/reddit_top2013/submissions_top2013.ndjson.zst", "reddit-ndjson"],
  ["corpora/hackernews_2015_2016/hacker_news.csv", "hn-csv"],
  ["corpora/stackexchange_startups/startups_se_questions.jsonl", "stackexchange-jsonl"],
  ["corpora/stackexchange_startups/onstartups_questions.jsonl", "stackexchange-jsonl"],
];

/** One labelled post. */
export interface Label {
  split: string;
  id: string;
  /** Accepted answers, lowercased; "" stands for NONE (no value is right, "" is). */
  accepted: ReadonlySet<string>;
}

/** Reads test/eval/labels/<file>: split, post id and "|"-separated accepted values per line. */
export function loadLabels(file: string): Label[] {
  const where = path.join(PACKAGE_ROOT, "test", "eval", "labels", file);
  return readFileSync(where, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => {
      const [split, id, values] = l.split("\t");
      if (!split || !id || values === undefined) throw new Error(`${where}: malformed line ${JSON.stringify(l)}`);
      return {
        split,
        id,
        accepted: new Set(values.split("|").map((v) => (v.trim() === "NONE" ? "" : v.trim().toLowerCase()))),
      };
    });
}

/** The labelled posts in label order; fails naming the first id no corpus holds. */
export async function labelledPosts(labels: readonly Label[]): Promise<Post[]> {
  const ids = new Set(labels.map((l) => l.id));
  const found = new Map<string, Post>();
  for (const [file, format] of LABELLED_CORPORA) {
    const input = await openInput(dataPath(file));
    for await (const item of readerFor(format)(input.bytes)) {
      if ("post" in item && ids.has(item.post.id)) found.set(item.post.id, item.post);
    }
  }
  const missing = labels.filter((l) => !found.has(l.id));
  if (missing.length > 0)
    throw new Error(`${missing.length} labelled posts not in the corpora (first ${missing[0]!.id})`);
  return labels.map((l) => found.get(l.id)!);
}
