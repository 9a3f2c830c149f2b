/**
 * Gzip for large REST answers, as Connect does for its own (server.ts, compressMinBytes): a page
 * of 100 results is 57-73 KB of JSON and 19-23 KB gzipped, which matters to a client across the
 * internet. Below the threshold (a default page of 10 is ~6.6 KB) compressing cost ~1.5 ms of CPU
 * across both ends and saved no round trip, so small answers go as they are. Gzip only: every
 * HTTP client decodes it, and brotli at its default quality costs several times more CPU here.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";

/** Answers at least this long (bytes) are compressed when the client accepts gzip. */
export const COMPRESS_MIN_BYTES = 12 * 1024;

const gzip = promisify(zlib.gzip);

/**
 * Whether an Accept-Encoding value allows gzip: named (or `*`) with a q-value above 0, and not
 * refused by a more specific `gzip;q=0`.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  let gzipQ: number | undefined;
  let anyQ: number | undefined;
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(q)) continue;
    if (name === "gzip" || name === "x-gzip") gzipQ = q;
    else if (name === "*") anyQ = q;
  }
  return (gzipQ ?? anyQ ?? 0) > 0;
}

/** The body to send and the Content-Encoding it carries ("" for none). */
export async function encodeAnswer(
  json: string,
  acceptEncoding: string | undefined,
): Promise<{ body: string | Buffer; encoding: string }> {
  if (Buffer.byteLength(json) < COMPRESS_MIN_BYTES || !acceptsGzip(acceptEncoding)) return { body: json, encoding: "" };
  return { body: await gzip(json, { level: 6 }), encoding: "gzip" };
}
