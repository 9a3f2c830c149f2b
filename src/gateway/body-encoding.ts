/**
 * Compressed REST request bodies (`Content-Encoding: gzip | deflate | br`), which HTTP clients
 * and SDKs send to save upload bandwidth. Before, such a body reached the JSON parser as is and
 * came back as MALFORMED_JSON quoting binary bytes. The body is inflated here, at most to the
 * body limit (a small compressed body cannot expand past it: a "zip bomb" is PAYLOAD_TOO_LARGE),
 * synchronously: the compressed body is itself within the limit (64 KiB by default), so this
 * costs microseconds. An encoding we do not know is 415 with `Accept-Encoding` saying which we do
 * (RFC 9110, section 15.5.16).
 */
import zlib from "node:zlib";
import { AppError } from "../errors/app-error.js";

/** Content codings accepted on request bodies, as an Accept-Encoding value. */
export const ACCEPTED_BODY_ENCODINGS = "gzip, deflate, br";

/** ErrorMetadata `field` of an unsupported coding's error, so the edge can add Accept-Encoding. */
export const CONTENT_ENCODING_FIELD = "Content-Encoding";

type Inflate = (body: Buffer, maxOutputLength: number) => Buffer;

const INFLATE: Readonly<Record<string, Inflate>> = {
  gzip: (b, max) => zlib.gunzipSync(b, { maxOutputLength: max }),
  "x-gzip": (b, max) => zlib.gunzipSync(b, { maxOutputLength: max }),
  // RFC 9110 "deflate" is the zlib format; some clients send raw deflate, which inflateSync refuses
  // with a clear message below rather than a guess.
  deflate: (b, max) => zlib.inflateSync(b, { maxOutputLength: max }),
  br: (b, max) => zlib.brotliDecompressSync(b, { maxOutputLength: max }),
};

/** `body` as sent, decoded from the request's Content-Encoding (a header value or undefined). */
export function decodeBody(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  const coding = (contentEncoding ?? "").trim().toLowerCase();
  if (coding === "" || coding === "identity" || body.length === 0) return body;
  const inflate = INFLATE[coding];
  if (inflate === undefined) {
    const what = coding.includes(",") ? `more than one content coding ("${coding}")` : `Content-Encoding "${coding}"`;
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `${what} is not supported on request bodies; send the body uncompressed or with one of ${ACCEPTED_BODY_ENCODINGS}`,
      {
        field: CONTENT_ENCODING_FIELD,
      },
    );
  }
  try {
    return inflate(body, maxBytes);
  } catch (cause) {
    if ((cause as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `the request body must be at most ${maxBytes} bytes once decompressed`,
        {},
        { cause },
      );
    }
    throw new AppError(
      "MALFORMED_JSON",
      `the request body is not valid ${coding} data, as its Content-Encoding says it is`,
      {},
      { cause },
    );
  }
}
