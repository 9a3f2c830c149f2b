/**
 * Opaque page tokens for search results. A token carries the next offset and a fingerprint of
 * the request it belongs to, so a token replayed with a different query or filter is refused
 * instead of silently paging through another result list.
 */
import { createHash } from "node:crypto";
import { AppError } from "../errors/app-error.js";
import { RULES } from "./request-rules.js";

/** Fingerprint of the parts of a request that define its result list. */
export function requestFingerprint(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

/** Encodes the token for the page starting at `offset`. */
export function encodePageToken(offset: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint })).toString("base64url");
}

/** Decodes a token to its offset (0 for ""), refusing tokens of other requests or out of range. */
export function decodePageToken(token: string, fingerprint: string, limit: number): number {
  if (token === "") return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const p = parsed as { o?: unknown; f?: unknown } | undefined;
  if (p === undefined || typeof p !== "object" || p === null || !Number.isInteger(p.o) || typeof p.f !== "string") {
    throw new AppError("INVALID_ARGUMENT", "page_token is not a token this service issued", { field: "page_token" });
  }
  if (p.f !== fingerprint) {
    throw new AppError("INVALID_ARGUMENT", "page_token belongs to a different query or filter; start again without it", { field: "page_token" });
  }
  const offset = p.o as number;
  if (offset < 0 || offset + limit > RULES.pagingDepthMax) {
    throw new AppError("OUT_OF_RANGE", `paging is limited to the first ${RULES.pagingDepthMax} results`, { field: "page_token" });
  }
  return offset;
}
