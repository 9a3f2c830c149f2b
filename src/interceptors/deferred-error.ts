/**
 * REST bodies are decoded by the gateway before the RPC runs, but a bad body must be judged in
 * the same order as on gRPC: authenticate first (401 beats 400), count the call against the
 * quota (validation failures count), and only then reject it. So the gateway does not answer a
 * decode error itself: it calls the RPC with an empty message and the error in an internal
 * header, and this innermost interceptor throws it. The HTTP layer strips the header from
 * client requests, so only the gateway's in-memory calls can carry it.
 */
import type { Interceptor } from "@connectrpc/connect";
import { AppError } from "../errors/app-error.js";
import type { ErrorKind } from "../errors/error-table.js";
import { ERROR_TABLE } from "../errors/error-table.js";

/** Internal header carrying a deferred decode error. */
export const DEFERRED_ERROR_HEADER = "x-threadsight-deferred-error";

/** Serialises an AppError for the header. */
export function encodeDeferredError(err: AppError): string {
  return Buffer.from(JSON.stringify({ k: err.kind, m: err.message, d: err.metadata })).toString("base64url");
}

function decode(value: string): AppError {
  const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as {
    k: string;
    m: string;
    d: Record<string, string>;
  };
  const kind = (parsed.k in ERROR_TABLE ? parsed.k : "INVALID_ARGUMENT") as ErrorKind;
  return new AppError(kind, parsed.m, parsed.d);
}

/** Throws the deferred error, if any; must be the innermost interceptor. */
export function deferredErrorInterceptor(): Interceptor {
  return (next) => async (req) => {
    const deferred = req.header.get(DEFERRED_ERROR_HEADER);
    if (deferred !== null) throw decode(deferred);
    return next(req);
  };
}
