/**
 * The gRPC "deflate" message encoding (zlib format, RFC 1950), which connect-es does not ship:
 * @grpc/grpc-js offers identity, deflate and gzip, and a client configured for deflate got
 * UNIMPLEMENTED. Decompression is bounded by the server's readMaxBytes, like gzip's, so a small
 * frame cannot inflate past the body limit.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";

const deflate = promisify(zlib.deflate);
const inflate = promisify(zlib.inflate);

/** A view whose buffer is a plain ArrayBuffer, as connect-es's types ask. */
function plain(bytes: Buffer): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);
}

/** The client's mistake, named: too large once inflated, or not deflate data at all. */
function inflateError(err: unknown, readMaxBytes: number): ConnectError {
  const code = (err as { code?: unknown }).code;
  if (code === "ERR_BUFFER_TOO_LARGE") {
    return new ConnectError(
      `message is larger than configured readMaxBytes ${readMaxBytes} after decompression`,
      Code.ResourceExhausted,
    );
  }
  return new ConnectError(
    "the message frame is flagged deflate-compressed but is not valid zlib (RFC 1950) data",
    Code.InvalidArgument,
  );
}

/** grpc-encoding: deflate, for `acceptCompression`. */
export const compressionDeflate: Compression = {
  name: "deflate",
  async compress(bytes) {
    return plain(await deflate(bytes));
  },
  async decompress(bytes, readMaxBytes) {
    if (bytes.length === 0) return new Uint8Array(0);
    try {
      return plain(await inflate(bytes, { maxOutputLength: readMaxBytes }));
    } catch (err) {
      throw inflateError(err, readMaxBytes);
    }
  },
};
