/**
 * The outermost interceptor: converts whatever was thrown into a table-driven ConnectError,
 * logs the call once (client mistakes at info, server faults at error with the cause, which
 * never reaches the client), and records metrics. Running as an interceptor means REST (through
 * the in-memory transport), Connect, gRPC and gRPC-Web are observed identically.
 */

import type { ConnectError, Interceptor } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import type { Logger } from "pino";
import { AppError } from "../errors/app-error.js";
import { connectCodeName } from "../errors/error-table.js";
import { appErrorToConnect, reasonOf, toConnectError } from "../errors/to-connect.js";
import type { RpcMetrics } from "../observability/metrics.js";
import { REQUEST_ID_HEADER } from "../observability/request-id.js";
import { protocolOf } from "./protocol.js";

const SERVER_FAULTS = new Set([Code.Internal, Code.Unknown, Code.DataLoss]);

/** Creates the observe interceptor. */
export function observeInterceptor(logger: Logger, metrics: RpcMetrics): Interceptor {
  return (next) => async (req) => {
    const started = process.hrtime.bigint();
    const labels = {
      service: req.service.typeName,
      method: req.method.name,
      protocol: protocolOf(req.header),
      code: "ok",
    };
    const requestId = req.header.get(REQUEST_ID_HEADER) ?? "";
    const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e9;
    const failed = (thrown: unknown): ConnectError => {
      let err = toConnectError(thrown);
      labels.code = connectCodeName(err.code);
      const seconds = elapsed();
      metrics.observe(labels, seconds);
      const fields = {
        requestId,
        rpc: `${labels.service}/${labels.method}`,
        protocol: labels.protocol,
        code: labels.code,
        reason: reasonOf(err),
        ms: Math.round(seconds * 1000),
      };
      if (SERVER_FAULTS.has(err.code)) {
        logger.error({ ...fields, err: err.cause ?? thrown }, "rpc failed");
        // Say which request failed so support can find the log line; say nothing else.
        err = appErrorToConnect(
          new AppError("INTERNAL", `internal error (request id ${requestId})`, {}, { cause: err.cause ?? thrown }),
        );
      } else {
        logger.info({ ...fields, message: err.rawMessage }, "rpc rejected");
      }
      return err;
    };
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (thrown) {
      throw failed(thrown);
    }
    if (!res.stream) {
      metrics.observe(labels, elapsed());
      return res;
    }
    // A server stream runs its handler while it is read: observe it when it ends.
    const source = res.message;
    async function* observed() {
      try {
        yield* source;
      } catch (thrown) {
        throw failed(thrown);
      }
      metrics.observe(labels, elapsed());
    }
    return { ...res, message: observed() };
  };
}
