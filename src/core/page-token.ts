/**
 * Opaque page tokens for search results. A token carries the next offset and a fingerprint of
 * the request it belongs to, so a token replayed with a different query or filter is refused
 * instead of silently paging through another result list; it is signed (HMAC-SHA256 with a
 * server secret), so a client cannot forge an offset or a fingerprint.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "../errors/app-error.js";
import { RULES } from "./request-rules.js";

/** Fingerprint of the parts of a request that define its result list. */
export function requestFingerprint(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

/** Shortest accepted signing secret, bytes. */
export const PAGE_TOKEN_SECRET_MIN_BYTES = 32;

function notIssued(): AppError {
  return new AppError("INVALID_ARGUMENT", "page_token is not a token this service issued; start again without it", {
    field: "page_token",
  });
}

/** Issues and checks page tokens under one secret (shared by every instance that serves the same index). */
export class PageTokens {
  private readonly secret: Buffer;

  constructor(secret: Uint8Array) {
    if (secret.length < PAGE_TOKEN_SECRET_MIN_BYTES)
      throw new RangeError(`the page-token secret must be at least ${PAGE_TOKEN_SECRET_MIN_BYTES} bytes`);
    this.secret = Buffer.from(secret);
  }

  private mac(payload: string): Buffer {
    return createHmac("sha256", this.secret).update(payload).digest();
  }

  /** Encodes the token for the page starting at `offset`: `<payload>.<signature>`, both base64url. */
  encode(offset: number, fingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ o: offset, f: fingerprint })).toString("base64url");
    return `${payload}.${this.mac(payload).toString("base64url")}`;
  }

  /** Checks the signature and shape of a token, returning its payload object. */
  private verified(token: string): { o?: unknown; a?: unknown; f?: unknown } {
    const [payload, signature, extra] = token.split(".");
    if (payload === undefined || signature === undefined || extra !== undefined) throw notIssued();
    const given = Buffer.from(signature, "base64url");
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notIssued();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null) throw notIssued();
    const p = parsed as { o?: unknown; a?: unknown; f?: unknown };
    if (typeof p.f !== "string") throw notIssued();
    return p;
  }

  private checkFingerprint(p: { f?: unknown }, fingerprint: string): void {
    if (p.f !== fingerprint) {
      throw new AppError(
        "INVALID_ARGUMENT",
        "page_token belongs to a different query or filter; start again without it",
        { field: "page_token" },
      );
    }
  }

  /** Decodes a token to its offset (0 for ""), refusing forged tokens, other requests' tokens and out-of-range offsets. */
  decode(token: string, fingerprint: string, limit: number): number {
    if (token === "") return 0;
    const p = this.verified(token);
    if (!Number.isInteger(p.o)) throw notIssued();
    this.checkFingerprint(p, fingerprint);
    const offset = p.o as number;
    if (offset < 0 || offset + limit > RULES.pagingDepthMax) {
      throw new AppError("OUT_OF_RANGE", `paging is limited to the first ${RULES.pagingDepthMax} results`, {
        field: "page_token",
      });
    }
    return offset;
  }

  /**
   * Encodes a keyset token: the next page starts after the row whose sort key is `after`. Lists
   * stored in a table page this way, to any depth, and rows written between two pages neither
   * shift the next page (no gap, no repeat) nor need an offset.
   */
  encodeAfter(after: string, fingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ a: after, f: fingerprint })).toString("base64url");
    return `${payload}.${this.mac(payload).toString("base64url")}`;
  }

  /** Decodes a keyset token to the key it continues after; undefined for "" (the first page). */
  decodeAfter(token: string, fingerprint: string): string | undefined {
    if (token === "") return undefined;
    const p = this.verified(token);
    if (typeof p.a !== "string") throw notIssued();
    this.checkFingerprint(p, fingerprint);
    return p.a;
  }
}
