/**
 * A request body that cannot be decoded is the client's mistake, but connect-es answers it with
 * Code.Internal (HTTP 500 on Connect): its serializers are shared with its clients, for which an
 * undecodable *response* is the server's fault. Malformed protobuf (bad tags, truncated varints,
 * wrong wire types, invalid UTF-8 in a string) and a frame flagged compressed without a
 * grpc-encoding therefore looked like our bugs. Parsing happens before any interceptor runs, so
 * this wraps the router's handlers instead and rewrites exactly those errors, in each protocol's
 * own encoding, to INVALID_ARGUMENT with a message naming the field. Everything else passes
 * through untouched, but for the gRPC and gRPC-Web status text, which leaves here in the gRPC
 * spec's percent-encoding rather than connect-es's (grpc-message.ts says why).
 */

import type { DescMessage } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, type ConnectError } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { trailerFlag, trailerParse, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { AppError } from "../errors/app-error.js";
import { toConnectError } from "../errors/to-connect.js";
import { respecGrpcMessage } from "./grpc-message.js";
import { locateDecodeFailure } from "./locate-decode-failure.js";

const PARSE_BINARY = "parse binary: ";
const NO_DECOMPRESSOR = "received compressed envelope, but do not know how to decompress";

/** True for the two request-decoding errors connect-es reports as Internal. */
function isDecodeFailure(code: Code | number, message: string): boolean {
  return code === Code.Internal && (message.startsWith(PARSE_BINARY) || message === NO_DECOMPRESSOR);
}

/** The replacement error: names the message type and, when it can, the field. */
function clientError(input: DescMessage, original: string, request: Uint8Array | undefined): ConnectError {
  if (original === NO_DECOMPRESSOR) {
    return toConnectError(
      new AppError(
        "INVALID_ARGUMENT",
        "the message frame is flagged compressed but the request names no grpc-encoding; clear the flag or send grpc-encoding: gzip",
      ),
    );
  }
  const where = request === undefined ? undefined : locateDecodeFailure(input, request);
  const detail = where ?? original.slice(PARSE_BINARY.length);
  return toConnectError(
    new AppError("INVALID_ARGUMENT", `request is not a valid ${input.typeName} in protobuf binary: ${detail}`),
  );
}

/** Concatenates the request bytes seen so far. */
function joined(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The unframed message of a gRPC / gRPC-Web body (its first envelope), if it has one. */
function firstEnvelope(body: Uint8Array): Uint8Array | undefined {
  if (body.length < 5) return undefined;
  const len = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1);
  return body.subarray(5, Math.min(body.length, 5 + len));
}

function wrap(handler: UniversalHandler, keepBytes: number): UniversalHandler {
  const input = handler.method.input;
  const wrapped = async (req: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const contentType = req.header.get("content-type") ?? "";
    // Keep references to the request chunks (bounded) so a failure can name the field.
    const seen: Uint8Array[] = [];
    let seenBytes = 0;
    const body = req.body;
    if (typeof body === "object" && body !== null && Symbol.asyncIterator in body) {
      const source = body as AsyncIterable<Uint8Array>;
      req = {
        ...req,
        body: (async function* tee() {
          for await (const chunk of source) {
            if (seenBytes <= keepBytes) {
              seen.push(chunk);
              seenBytes += chunk.length;
            }
            yield chunk;
          }
        })(),
      };
    }
    const res = await handler(req);
    const requestBytes = (framed: boolean): Uint8Array | undefined => {
      if (seen.length === 0 || seenBytes > keepBytes) return undefined;
      const all = joined(seen);
      return framed ? firstEnvelope(all) : all;
    };
    if (contentType.startsWith("application/grpc-web")) return rewriteGrpcWeb(res, input, () => requestBytes(true));
    if (contentType.startsWith("application/grpc")) return rewriteGrpc(res, input, () => requestBytes(true));
    return rewriteConnectUnary(res, input, () => requestBytes(false));
  };
  return Object.assign(wrapped, handler);
}

/** gRPC: the status travels in trailers, which are final only once the body has been read. */
function rewriteGrpc(
  res: UniversalServerResponse,
  input: DescMessage,
  request: () => Uint8Array | undefined,
): UniversalServerResponse {
  const trailer = res.trailer;
  const body = res.body;
  if (trailer === undefined || body === undefined || !(Symbol.asyncIterator in body)) return res;
  const fix = (): void => {
    const message = decodeURIComponent(trailer.get("grpc-message") ?? "");
    if (isDecodeFailure(Number(trailer.get("grpc-status")), message)) {
      trailer.delete("grpc-status-details-bin");
      setTrailerStatus(trailer, clientError(input, message, request()));
    }
    respecGrpcMessage(trailer);
  };
  const source = body as AsyncIterable<Uint8Array>;
  return {
    ...res,
    body: (async function* rewritten() {
      yield* source;
      fix();
    })(),
  };
}

/** gRPC-Web: the status is the last frame of the body (flag 0x80, HTTP/1-style header lines). */
function rewriteGrpcWeb(
  res: UniversalServerResponse,
  input: DescMessage,
  request: () => Uint8Array | undefined,
): UniversalServerResponse {
  const body = res.body;
  if (body === undefined || !(Symbol.asyncIterator in body)) return res;
  const source = body as AsyncIterable<Uint8Array>;
  const fix = (chunk: Uint8Array): Uint8Array => {
    if (chunk.length < 5 || chunk[0] !== trailerFlag) return chunk;
    const len = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength).getUint32(1);
    if (5 + len !== chunk.length) return chunk;
    const trailer = trailerParse(chunk.subarray(5));
    const raw = trailer.get("grpc-message") ?? "";
    const message = decodeURIComponent(raw);
    const reclassify = isDecodeFailure(Number(trailer.get("grpc-status")), message);
    if (!reclassify && !raw.includes("%")) return chunk;
    if (reclassify) {
      trailer.delete("grpc-status-details-bin");
      setTrailerStatus(trailer, clientError(input, message, request()));
    }
    respecGrpcMessage(trailer);
    const data = trailerSerialize(trailer);
    const out = new Uint8Array(5 + data.length);
    out[0] = trailerFlag;
    new DataView(out.buffer).setUint32(1, data.length);
    out.set(data, 5);
    return out;
  };
  return {
    ...res,
    body: (async function* rewritten() {
      for await (const chunk of source) yield fix(chunk);
    })(),
  };
}

/** Connect unary: an error is a JSON body with an HTTP status; only 500s can need rewriting. */
async function rewriteConnectUnary(
  res: UniversalServerResponse,
  input: DescMessage,
  request: () => Uint8Array | undefined,
): Promise<UniversalServerResponse> {
  const body = res.body;
  if (res.status !== 500 || body === undefined || !(Symbol.asyncIterator in body)) return res;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  const bytes = chunks.length === 0 ? new Uint8Array(0) : joined(chunks);
  let parsed: { code?: unknown; message?: unknown } = {};
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString("utf8")) as typeof parsed;
  } catch {
    // Not a Connect error body: pass it on as it was.
  }
  const message = typeof parsed.message === "string" ? parsed.message : "";
  if (parsed.code !== "internal" || !isDecodeFailure(Code.Internal, message)) {
    return {
      ...res,
      body: (async function* replay() {
        yield bytes;
      })(),
    };
  }
  const replacement = errorToJsonBytes(clientError(input, message, request()), undefined);
  const header = new Headers(res.header);
  header.set("content-length", String(replacement.byteLength));
  return {
    ...res,
    status: 400,
    header,
    body: (async function* replay() {
      yield replacement;
    })(),
  };
}

/**
 * Wraps every handler registered on `router` so request-decoding failures answer
 * INVALID_ARGUMENT. Call after all services are registered. `readMaxBytes` bounds how much of a
 * request is kept for naming the failing field.
 */
export function reclassifyDecodeErrors(router: ConnectRouter, readMaxBytes: number): void {
  const handlers = router.handlers as UniversalHandler[];
  for (let i = 0; i < handlers.length; i++) handlers[i] = wrap(handlers[i]!, readMaxBytes + 5);
}
