/**
 * Writes the sample a fresh install loads on its first run (scripts/start.sh): a few hundred
 * public-domain Reddit submissions (PDDL 1.0) picked from the shared reddit_top2013 dump, with
 * the licence beside them. Only this dump may be redistributed (../shared/data/README.md).
 *
 * The pick is deterministic: for each of a few business and tech subreddits and each month of
 * 2013, the most upvoted posts and the most upvoted self-posts that ask something, so search,
 * trends (several months of history) and leads (asks) all have material. Bodies are cut at
 * MAX_BODY characters to keep the file small; every other field is the dump's own.
 *
 * Usage: node --import tsx scripts/make-sample.ts  (reads THREADSIGHT_SHARED_DATA, default ../shared/data)
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { dataPath } from "../test/eval/shared-data.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DUMP = dataPath("corpora", "reddit_top2013", "submissions_top2013.ndjson.zst");
const LICENSE = dataPath("corpora", "reddit_top2013", "LICENSE_PDDL.txt");
const OUT_DIR = path.join(ROOT, "sample");

const SUBREDDITS = ["startups", "Entrepreneur", "smallbusiness", "marketing", "SEO", "sysadmin", "webdev", "freelance"];
const FROM = Date.UTC(2013, 0, 1) / 1000;
const TO = Date.UTC(2013, 8, 1) / 1000;
const TOP_PER_MONTH = 4;
const ASKS_PER_MONTH = 3;
const MAX_BODY = 1200;
const ASK = /\?|\b(looking for|recommend|suggestions?|need (a|an|some)|any(one)? (know|use))\b/i;

/** The dump fields the sample keeps (what the Reddit reader maps, plus what identifies a post). */
interface Submission {
  id: string;
  name: string;
  subreddit: string;
  title: string;
  selftext: string;
  score: number;
  num_comments: number;
  created_utc: number;
  permalink: string;
  url: string;
  is_self: boolean;
  over_18: boolean;
}

async function readDump(): Promise<Submission[]> {
  const zstd = spawn("zstd", ["-dc", "--long=31", DUMP], { stdio: ["ignore", "pipe", "inherit"] });
  const kept: Submission[] = [];
  for await (const line of createInterface({ input: zstd.stdout })) {
    if (!line.trim()) continue;
    const p = JSON.parse(line) as Submission;
    if (!SUBREDDITS.includes(p.subreddit) || p.over_18) continue;
    if (p.created_utc < FROM || p.created_utc >= TO) continue;
    if (p.selftext === "[deleted]" || p.selftext === "[removed]") continue;
    kept.push(p);
  }
  const code: number = await new Promise((resolve) => zstd.on("close", (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`zstd exited with ${code} reading ${DUMP}`);
  return kept;
}

function pick(posts: Submission[]): Submission[] {
  const groups = new Map<string, Submission[]>();
  for (const p of posts) {
    const key = `${p.subreddit}|${new Date(p.created_utc * 1000).toISOString().slice(0, 7)}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const chosen = new Map<string, Submission>();
  const byScore = (a: Submission, b: Submission): number => b.score - a.score || a.id.localeCompare(b.id);
  for (const key of [...groups.keys()].sort()) {
    const group = (groups.get(key) ?? []).sort(byScore);
    for (const p of group.slice(0, TOP_PER_MONTH)) chosen.set(p.id, p);
    const asks = group.filter((p) => p.is_self && p.selftext.length > 80 && ASK.test(p.title) && !chosen.has(p.id));
    for (const p of asks.slice(0, ASKS_PER_MONTH)) chosen.set(p.id, p);
  }
  return [...chosen.values()].sort((a, b) => a.created_utc - b.created_utc || a.id.localeCompare(b.id));
}

function cutBody(text: string): string {
  if (text.length <= MAX_BODY) return text;
  const cut = text.slice(0, MAX_BODY);
  const space = cut.lastIndexOf(" ");
  return `${cut.slice(0, space > MAX_BODY / 2 ? space : MAX_BODY)}…`;
}

const posts = pick(await readDump());
const lines = posts.map((p) =>
  JSON.stringify({
    id: p.id,
    name: p.name,
    subreddit: p.subreddit,
    title: p.title,
    selftext: cutBody(p.selftext),
    score: p.score,
    num_comments: p.num_comments,
    created_utc: p.created_utc,
    permalink: p.permalink,
    url: p.url,
    is_self: p.is_self,
    over_18: p.over_18,
  }),
);
mkdirSync(OUT_DIR, { recursive: true });
writeFileSync(path.join(OUT_DIR, "reddit-sample.ndjson"), `${lines.join("\n")}\n`);
copyFileSync(LICENSE, path.join(OUT_DIR, "LICENSE_PDDL.txt"));
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
process.stdout.write(`wrote sample/reddit-sample.ndjson: ${posts.length} posts, ${bytes} bytes\n`);
