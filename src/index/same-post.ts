/**
 * Whether a post about to be written is the one already stored, field for field and vector for
 * vector, as the indexes store them: counts and `created` as whole numbers (both indexes keep
 * integers), scores at float32 precision (what reenrich compares at, and no coarser than either
 * index keeps). A difference the storage itself introduces only makes a post count as changed,
 * which writes it again as before; it never skips a real change.
 */
import type { IndexedPost } from "../model/post.js";

const TEXT_FIELDS = [
  "id", "source", "nativeId", "title", "content", "subforum", "author", "url",
  "sentiment", "leadType", "painPoint", "opportunity", "industry", "targetProduct", "topicId",
] as const;
const WHOLE_NUMBERS = ["upvotes", "comments", "created"] as const;
const SCORES = ["sentimentScore", "leadScore"] as const;

/** True when writing `next` over `stored` would change nothing. */
export function samePost(stored: IndexedPost, next: IndexedPost): boolean {
  if (TEXT_FIELDS.some((k) => stored[k] !== next[k])) return false;
  if (WHOLE_NUMBERS.some((k) => stored[k] !== Math.trunc(next[k]))) return false;
  if (SCORES.some((k) => Math.fround(stored[k]) !== Math.fround(next[k]))) return false;
  const a = stored.vector;
  const b = next.vector;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== Math.fround(b[i]!)) return false;
  return true;
}
