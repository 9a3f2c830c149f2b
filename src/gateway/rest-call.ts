/**
 * What every REST route of the gateway does around its RPC, unary or streaming: the headers
 * the RPC layer needs, the body decoded strictly (a decode error deferred to the innermost
 * interceptor, so auth and limits judge the call first), cancellation when the client goes
 * away, and the error envelope.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { create } from "@bufbuild/protobuf";
import type { FastifyReply, FastifyRequest } from "fastify";
import { PEER_HEADER } from "../auth/context.js";
import { AppError } from "../errors/app-error.js";
import { DEFERRED_ERROR_HEADER, encodeDeferredError } from "../interceptors/deferred-error.js";
import { PROTOCOL_HEADER } from "../interceptors/protocol.js";
import { REQUEST_ID_HEADER } from "../observability/request-id.js";
import { errorResponse, forwardHeaders } from "./envelope.js";
import { strictFromJson } from "./strict-json.js";

/** Request headers the RPC layer needs from a REST call. */
export function rpcHeaders(req: FastifyRequest): Headers {
  const h = new Headers();
  const auth = req.headers.authorization;
  if (auth !== undefined) h.set("authorization", auth);
  h.set(REQUEST_ID_HEADER, String(req.id));
  h.set(PEER_HEADER, req.ip);
  h.set(PROTOCOL_HEADER, "rest");
  return h;
}

/**
 * The request message of `body` for `schema`; a decode error is put in `headers` for the
 * deferred-error interceptor to throw, and an empty message returned.
 */
export function decodeInput<I extends DescMessage>(schema: I, body: unknown, headers: Headers): MessageShape<I> {
  try {
    return strictFromJson(schema, body) as MessageShape<I>;
  } catch (decodeError) {
    if (!(decodeError instanceof AppError)) throw decodeError;
    deferError(headers, decodeError);
    return create(schema);
  }
}

/** Makes the RPC fail with `err` once auth and limits have judged it (deferred-error.ts). */
export function deferError(headers: Headers, err: AppError): void {
  if (!headers.has(DEFERRED_ERROR_HEADER)) headers.set(DEFERRED_ERROR_HEADER, encodeDeferredError(err));
}

/** An AbortSignal that fires when the REST client goes away before we answer. */
export function clientGone(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.sent) controller.abort(new AppError("CANCELED", "the client closed the connection"));
  });
  return controller.signal;
}

/** Answers with the error envelope and the status of the error table. */
export function sendError(reply: FastifyReply, thrown: unknown, requestId: string): FastifyReply {
  const { status, body, error } = errorResponse(thrown, requestId);
  forwardHeaders(error.metadata, (n, v) => void reply.header(n, v));
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

/** A path as Fastify's router takes it: a literal ":" (AIP custom methods, `posts:batchGet`) is doubled. */
export function fastifyPath(path: string): string {
  return path.replaceAll(":", "::");
}
