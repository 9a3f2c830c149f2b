/**
 * Per-post validation before a write, shared by both adapters: a malformed post is reported in
 * UpsertResult.failed with a reason and the rest of the batch is written. Within one batch the
 * last post with a given id wins (an id is written once per batch, never duplicated).
 */
import type { IndexedPost } from "../model/post.js";
import type { UpsertResult } from "./search-index.js";

/** Valid posts (deduplicated by id, last wins) and the reasons the others were refused. */
export function splitValid(
  posts: readonly IndexedPost[],
  dimensions: number,
): { valid: IndexedPost[]; failed: UpsertResult["failed"] } {
  const failed: UpsertResult["failed"] = [];
  const byId = new Map<string, IndexedPost>();
  for (const p of posts) {
    const reason = problem(p, dimensions);
    if (reason) failed.push({ id: typeof p.id === "string" ? p.id : String(p.id), reason });
    else {
      byId.delete(p.id);
      byId.set(p.id, p);
    }
  }
  return { valid: [...byId.values()], failed };
}

function problem(p: IndexedPost, dimensions: number): string | undefined {
  if (typeof p.id !== "string" || p.id === "") return "id must be a non-empty string";
  if (!(p.vector instanceof Float32Array)) return "vector must be a Float32Array";
  if (p.vector.length !== dimensions)
    return `vector has ${p.vector.length} dimensions, the index expects ${dimensions}`;
  for (const x of p.vector) if (!Number.isFinite(x)) return "vector contains a non-finite number";
  for (const key of ["created", "upvotes", "comments", "sentimentScore", "leadScore"] as const) {
    if (!Number.isFinite(p[key])) return `${key} must be a finite number, got ${p[key]}`;
  }
  return undefined;
}
