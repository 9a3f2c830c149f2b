/**
 * Gives every call a deadline. A client deadline (grpc-timeout / connect-timeout-ms) already
 * bounds the handler's signal; calls without one get the server default, so no call can hold a
 * backend connection forever. Handlers pass `ctx.signal` down to the index and embedder.
 * Streams (health Watch, reflection) are long-lived by design and are left alone.
 */
import type { Interceptor } from "@connectrpc/connect";

/** Creates the deadline interceptor with the server's default timeout. */
export function deadlineInterceptor(defaultTimeoutMs: number): Interceptor {
  return (next) => async (req) => {
    const clientSetDeadline = req.header.has("grpc-timeout") || req.header.has("connect-timeout-ms");
    if (clientSetDeadline || req.stream) return next(req);
    return next({ ...req, signal: AbortSignal.any([req.signal, AbortSignal.timeout(defaultTimeoutMs)]) });
  };
}
