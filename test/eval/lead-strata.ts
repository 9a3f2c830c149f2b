/**
 * The strata and splits of the hand-labelled lead set (test/eval/labels/leads.tsv): a post's
 * subforum group, what the rule classifier of src/enrich/leads says of it (rules alone, no vector,
 * so a stratum depends on the post only) and its lead-score band; its split is a hash of its id.
 */
import { createHash } from "node:crypto";
import { subforumIndustry } from "../../src/enrich/leads/industry.js";
import type { Post } from "../../src/model/post.js";

/** The fixed splits and their shares of the id hash's 100 buckets. */
export const LEAD_SPLITS = [
  ["train", 60],
  ["dev", 20],
  ["test", 20],
] as const;

/** One of the splits. */
export type LeadSplit = (typeof LEAD_SPLITS)[number][0];

/** An unsigned 32-bit number from the SHA-256 of `text`. */
export function hash32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** The split of a post id: bucket hash32(id) mod 100 against the cumulative shares. */
export function splitOf(id: string): LeadSplit {
  const bucket = hash32(id) % 100;
  let upTo = 0;
  for (const [split, share] of LEAD_SPLITS) {
    upTo += share;
    if (bucket < upTo) return split;
  }
  throw new Error(`split shares do not add up to 100 (bucket ${bucket})`);
}

/**
 * The subforum group: Hacker News and the two Stack Exchange sites each one group, a subreddit
 * the group of its usual industry (subreddits the industry table lacks are "reddit:general").
 */
export function subforumGroup(post: Pick<Post, "source" | "subforum">): string {
  if (post.source !== "reddit") return post.source === "hackernews" ? "hackernews" : "stackexchange";
  return `reddit:${subforumIndustry(post.subforum) ?? "general"}`;
}

/** Lead-score bands of a candidate: none for a non-lead, then low, mid and high. */
export function scoreBand(leadType: string, leadScore: number): string {
  if (leadType === "") return "none";
  if (leadScore < 50) return "low";
  if (leadScore < 70) return "mid";
  return "high";
}

/** The stratum key "group/candidate/band" (candidate "none" for a non-lead). */
export function stratumOf(post: Pick<Post, "source" | "subforum">, leadType: string, leadScore: number): string {
  return `${subforumGroup(post)}/${leadType === "" ? "none" : leadType}/${scoreBand(leadType, leadScore)}`;
}

/** Largest-remainder apportionment of `total` over `weights`, each stratum at least one. */
export function apportion(weights: ReadonlyMap<string, number>, total: number): Map<string, number> {
  if (weights.size > total) throw new Error(`--total ${total} is below the number of strata (${weights.size})`);
  const rest = total - weights.size;
  const sum = [...weights.values()].reduce((a, b) => a + b, 0);
  const exact = [...weights].map(([k, w]): [string, number] => [k, (rest * w) / sum]);
  const out = new Map(exact.map(([k, x]): [string, number] => [k, 1 + Math.floor(x)]));
  let left = total - [...out.values()].reduce((a, b) => a + b, 0);
  const byRemainder = [...exact].sort(
    (a, b) => b[1] - Math.floor(b[1]) - (a[1] - Math.floor(a[1])) || (a[0] < b[0] ? -1 : 1),
  );
  for (const [k] of byRemainder) {
    if (left-- <= 0) break;
    out.set(k, out.get(k)! + 1);
  }
  return out;
}
