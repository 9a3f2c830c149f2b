/**
 * Hand-built gRPC traffic for the bad-input suites: a protobuf encoder small enough to write
 * wrong bytes on purpose, envelope framing, and three ways to send those bytes (gRPC over raw
 * HTTP/2, Connect unary, gRPC-Web) that return the status the server chose, untouched by any
 * client library that might refuse to send a broken frame or reinterpret the answer.
 */
import http2 from "node:http2";

/** gRPC status codes the suites name (google.rpc.Code). */
export const Status = {
  OK: 0,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAUTHENTICATED: 16,
} as const;

/** Connect's string codes for the same statuses, keyed by number. */
export const CONNECT_CODE: Record<number, string> = {
  0: "ok",
  1: "canceled",
  2: "unknown",
  3: "invalid_argument",
  4: "deadline_exceeded",
  5: "not_found",
  6: "already_exists",
  7: "permission_denied",
  8: "resource_exhausted",
  9: "failed_precondition",
  10: "aborted",
  11: "out_of_range",
  12: "unimplemented",
  13: "internal",
  14: "unavailable",
  15: "data_loss",
  16: "unauthenticated",
};

/** A base-128 varint; bigint so negative int32 values can be written as the 10 bytes protobuf uses. */
export function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Buffer.from(out);
}

/** A field tag: field number and wire type (0 varint, 1 i64, 2 length-delimited, 5 i32). */
export function tag(field: number, wireType: number): Buffer {
  return varint((field << 3) | wireType);
}

/** A length-delimited field holding `bytes` (a string field when the bytes are UTF-8). */
export function lenField(field: number, bytes: Uint8Array | string): Buffer {
  const body = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes);
  return Buffer.concat([tag(field, 2), varint(body.length), body]);
}

/** A varint field. */
export function varintField(field: number, value: number | bigint): Buffer {
  return Buffer.concat([tag(field, 0), varint(value)]);
}

/** A gRPC / gRPC-Web / Connect-streaming envelope: flags, big-endian length, payload. */
export function envelope(payload: Uint8Array, opts: { flags?: number; declaredLength?: number } = {}): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(opts.flags ?? 0, 0);
  head.writeUInt32BE(opts.declaredLength ?? payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** What a call came back with. `grpcStatus` is undefined when the server sent none. */
export interface WireResult {
  httpStatus: number;
  grpcStatus: number | undefined;
  grpcMessage: string;
  /** Response body bytes (the framed response message for gRPC). */
  body: Buffer;
}

/** One HTTP/2 session per suite: reused, so a call that kills it shows up in the next call. */
export class H2Client {
  private session: http2.ClientHttp2Session;

  constructor(private readonly url: string) {
    this.session = http2.connect(url);
    this.session.on("error", () => {});
  }

  /** Sends `body` as one gRPC request to `/service/method` and collects headers and trailers. */
  call(path: string, body: Buffer, headers: Record<string, string> = {}): Promise<WireResult> {
    if (this.session.closed || this.session.destroyed) {
      this.session = http2.connect(this.url);
      this.session.on("error", () => {});
    }
    return new Promise((resolve, reject) => {
      const stream = this.session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc+proto",
        te: "trailers",
        ...headers,
      });
      let httpStatus = 0;
      const meta: Record<string, string> = {};
      const chunks: Buffer[] = [];
      const take = (h: http2.IncomingHttpHeaders): void => {
        for (const [k, v] of Object.entries(h)) if (typeof v === "string") meta[k] = v;
      };
      stream.on("response", (h) => {
        httpStatus = Number(h[":status"]);
        take(h);
        // Trailers-only: the status came with the headers.
        if (h["grpc-status"] !== undefined && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      });
      stream.on("trailers", (h) => {
        take(h);
        // The status is final. A server may answer before reading the whole request (an
        // oversized message); cancel our half as a real client does, so the stream can close.
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      });
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("close", () => {
        const status = meta["grpc-status"];
        resolve({
          httpStatus,
          grpcStatus: status === undefined ? undefined : Number(status),
          grpcMessage: decodeURIComponent(meta["grpc-message"] ?? ""),
          body: Buffer.concat(chunks),
        });
      });
      stream.end(body);
    });
  }

  /** Ends the session at once: a stream left open by a bad case must not keep it alive. */
  close(): void {
    this.session.destroy();
  }
}

/** A Connect unary call over HTTP/1.1: `binary` posts application/proto, otherwise application/json. */
export async function connectUnary(
  base: string,
  path: string,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
  binary = true,
): Promise<WireResult & { connectCode: string | undefined }> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: {
      "content-type": binary ? "application/proto" : "application/json",
      "connect-protocol-version": "1",
      connection: "close",
      ...headers,
    },
    body: typeof body === "string" ? body : new Uint8Array(body).buffer,
  });
  const buf = Buffer.from(await res.arrayBuffer());
  if (res.status === 200) return { httpStatus: 200, grpcStatus: 0, grpcMessage: "", body: buf, connectCode: "ok" };
  let parsed: { code?: string; message?: string } = {};
  try {
    parsed = JSON.parse(buf.toString("utf8")) as typeof parsed;
  } catch {
    // Not a Connect error body; the caller sees connectCode undefined.
  }
  const num = Object.entries(CONNECT_CODE).find(([, name]) => name === parsed.code)?.[0];
  return {
    httpStatus: res.status,
    grpcStatus: num === undefined ? undefined : Number(num),
    grpcMessage: parsed.message ?? "",
    body: buf,
    connectCode: parsed.code,
  };
}

/** A gRPC-Web call over HTTP/1.1; status and message come from the trailer frame in the body. */
export async function grpcWebCall(
  base: string,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<WireResult> {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", connection: "close", ...headers },
    body: new Uint8Array(body).buffer,
  });
  const buf = Buffer.from(await res.arrayBuffer());
  const meta: Record<string, string> = {};
  res.headers.forEach((v, k) => (meta[k] = v));
  // Walk the frames; the one with flag 0x80 holds the trailers as HTTP/1-style header lines.
  for (let at = 0; at + 5 <= buf.length; ) {
    const flags = buf.readUInt8(at);
    const len = buf.readUInt32BE(at + 1);
    const payload = buf.subarray(at + 5, at + 5 + len);
    if (flags & 0x80) {
      for (const line of payload.toString("utf8").split("\r\n")) {
        const i = line.indexOf(":");
        if (i > 0) meta[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
    }
    at += 5 + len;
  }
  const status = meta["grpc-status"];
  return {
    httpStatus: res.status,
    grpcStatus: status === undefined ? undefined : Number(status),
    grpcMessage: decodeURIComponent(meta["grpc-message"] ?? ""),
    body: buf,
  };
}
