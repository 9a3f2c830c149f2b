/**
 * Argument checks shared by both adapters, so a bad page, vector or filter fails the same way
 * (RangeError naming the field) whichever backend is configured.
 */

import type { Page, QueryFilter, ScanQuery, SimilarityBound } from "./search-index.js";
import { FILTER_LISTS, FILTER_NUMBERS, SCAN_LIMIT_MAX } from "./search-index.js";

/** Largest `limit` and `offset + limit` either backend serves (Weaviate's default maximum). */
export const MAX_RESULT_WINDOW = 10_000;

/** Throws RangeError unless limit is 1..MAX and offset >= 0 with offset + limit <= MAX. */
export function checkPage(page: Page): void {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_RESULT_WINDOW) {
    throw new RangeError(`limit must be a whole number between 1 and ${MAX_RESULT_WINDOW}, got ${page.limit}`);
  }
  if (!Number.isInteger(page.offset) || page.offset < 0) {
    throw new RangeError(`offset must be a whole number >= 0, got ${page.offset}`);
  }
  if (page.offset + page.limit > MAX_RESULT_WINDOW) {
    throw new RangeError(`offset + limit must be at most ${MAX_RESULT_WINDOW}, got ${page.offset + page.limit}`);
  }
}

/** Throws RangeError unless a scan page's limit is 1..SCAN_LIMIT_MAX and its cursor a finite time and an id. */
export function checkScan(query: ScanQuery): void {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > SCAN_LIMIT_MAX) {
    throw new RangeError(`limit must be a whole number between 1 and ${SCAN_LIMIT_MAX}, got ${query.limit}`);
  }
  if (query.after !== undefined && (!Number.isFinite(query.after.created) || typeof query.after.id !== "string")) {
    throw new RangeError("after must hold a finite created time and a string id");
  }
  checkFilter(query.filter);
}

/** Throws RangeError unless a similarity bound holds a good vector and a threshold in -1..1. */
export function checkBound(near: SimilarityBound, dimensions: number): void {
  checkVector(near.vector, dimensions);
  if (!(near.minSimilarity >= -1 && near.minSimilarity <= 1)) {
    throw new RangeError(`minSimilarity must be between -1 and 1, got ${near.minSimilarity}`);
  }
}

/**
 * Throws RangeError unless the vector has `dimensions` finite components and is not all zeros
 * (cosine similarity is undefined for a zero vector).
 */
export function checkVector(vector: Float32Array, dimensions: number, what = "query vector"): void {
  if (!(vector instanceof Float32Array)) throw new RangeError(`${what} must be a Float32Array`);
  if (vector.length !== dimensions) {
    throw new RangeError(`${what} must have ${dimensions} dimensions, got ${vector.length}`);
  }
  let norm = 0;
  for (const x of vector) {
    if (!Number.isFinite(x)) throw new RangeError(`${what} must contain only finite numbers`);
    norm += x * x;
  }
  if (norm === 0) throw new RangeError(`${what} must not be all zeros`);
}

/** Throws RangeError for non-finite bounds and non-string list items; values are otherwise passed through as data. */
export function checkFilter(filter: QueryFilter | undefined): void {
  if (!filter) return;
  for (const key of FILTER_NUMBERS) {
    const v = filter[key];
    if (v !== undefined && !Number.isFinite(v)) throw new RangeError(`filter.${key} must be a finite number, got ${v}`);
  }
  for (const key of FILTER_LISTS) {
    for (const s of filter[key] ?? []) {
      if (typeof s !== "string") throw new RangeError(`filter.${key} must contain only strings`);
    }
  }
}

/** Throws RangeError unless alpha is in 0..1. */
export function checkAlpha(alpha: number): void {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`alpha must be between 0 and 1, got ${alpha}`);
}
