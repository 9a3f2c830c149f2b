/**
 * Whether a post about to be written is the one already stored, field for field and vector for
 * vector, as the indexes store them: counts and `created` as whole numbers (both indexes keep
 * integers), scores at float32 precision (no coarser than either index keeps; reenrich compares
 * enrichment with the same {@link sameEnrichment}). A difference the storage itself introduces only makes a post count as changed,
 * which writes it again as before; it never skips a real change.
 */
import type { EnrichedPost, IndexedPost } from "../model/post.js";

const POST_TEXT = ["id", "source", "nativeId", "title", "content", "subforum", "author", "url"] as const;
const WHOLE_NUMBERS = ["upvotes", "comments", "created"] as const;
const ENRICHMENT_TEXT = [
  "sentiment",
  "leadType",
  "painPoint",
  "opportunity",
  "industry",
  "targetProduct",
  "topicId",
] as const;
const ENRICHMENT_SCORES = ["sentimentScore", "leadScore"] as const;

/** True when the enrichment fields agree (scores at float32 precision). */
export function sameEnrichment(a: EnrichedPost, b: EnrichedPost): boolean {
  return (
    ENRICHMENT_TEXT.every((k) => a[k] === b[k]) &&
    ENRICHMENT_SCORES.every((k) => Math.fround(a[k]) === Math.fround(b[k]))
  );
}

/** True when writing `next` over `stored` would change nothing. */
export function samePost(stored: IndexedPost, next: IndexedPost): boolean {
  if (POST_TEXT.some((k) => stored[k] !== next[k])) return false;
  if (WHOLE_NUMBERS.some((k) => stored[k] !== Math.trunc(next[k]))) return false;
  if (!sameEnrichment(stored, next)) return false;
  const a = stored.vector;
  const b = next.vector;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== Math.fround(b[i]!)) return false;
  return true;
}
