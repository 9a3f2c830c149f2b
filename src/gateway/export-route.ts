/**
 * The streaming REST route of a server-streaming RPC (ExportPosts): the body decoded as for
 * every route, the format picked (body `format`, else Accept), then the RPC called through the
 * same in-memory router transport as the unary routes, so auth, limits, deadlines and the
 * observe interceptor judge it alike. Until the first message arrives nothing is written, so a
 * failure is the usual error envelope with its status and headers; after it, the answer is a
 * 200 stream whose last line says how it ended (export-format.ts). A client that goes away
 * cancels the RPC.
 */
import { Readable } from "node:stream";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { toJson } from "@bufbuild/protobuf";
import type { StreamResponse, Transport } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ExportFormat } from "../core/posts.js";
import { EXPORT_FORMATS } from "../core/posts.js";
import { AppError } from "../errors/app-error.js";
import { errorResponse, forwardHeaders } from "./envelope.js";
import type { ExportStop } from "./export-format.js";
import { negotiateFormat, writerFor } from "./export-format.js";
import type { StreamRoute } from "./http-rules.js";
import { aliasPath } from "./http-rules.js";
import { decodeInput, deferError, fastifyPath, rpcHeaders, sendError } from "./rest-call.js";

async function* once<T>(message: T): AsyncIterable<T> {
  yield message;
}

/** How the stream stopped, for its last line. */
function stopOf(thrown: unknown, requestId: string): ExportStop {
  const { body, error } = errorResponse(thrown, requestId);
  const retryAfter = Number(error.metadata.get("retry-after") ?? Number.NaN);
  return { ...body.error, ...(Number.isFinite(retryAfter) ? { retry_after_seconds: retryAfter } : {}) };
}

/** The format the request asks for; an unknown `format` value is left for the RPC to refuse. */
function formatOf(req: FastifyRequest, requested: string, headers: Headers): ExportFormat {
  if ((EXPORT_FORMATS as readonly string[]).includes(requested)) return requested as ExportFormat;
  if (requested !== "") return "ndjson";
  const negotiated = negotiateFormat(req.headers.accept);
  if (negotiated !== undefined) return negotiated;
  deferError(
    headers,
    new AppError(
      "NOT_ACCEPTABLE",
      `Accept must allow application/x-ndjson or text/csv (or send "format": "ndjson" | "csv"), got "${req.headers.accept ?? ""}"`,
      { field: "accept" },
    ),
  );
  return "ndjson";
}

/** Registers the streaming route (and its /v1 alias) of `route`. */
export function registerExportRoute(app: FastifyInstance, route: StreamRoute, transport: Transport): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const requestId = String(req.id);
    const headers = rpcHeaders(req);
    const input = decodeInput(route.method.input, req.body, headers);
    const fields = input as { format?: unknown; query?: unknown };
    const writer = writerFor(formatOf(req, String(fields.format ?? ""), headers), fields.query !== undefined);
    let finished = false;
    const controller = new AbortController();
    reply.raw.once("close", () => {
      if (!finished) controller.abort(new AppError("CANCELED", "the client closed the connection"));
    });
    let res: StreamResponse<DescMessage, DescMessage>;
    let messages: AsyncIterator<MessageShape<DescMessage>>;
    let first: IteratorResult<MessageShape<DescMessage>>;
    try {
      res = await transport.stream(route.method, controller.signal, undefined, headers, once(input));
      messages = res.message[Symbol.asyncIterator]();
      first = await messages.next();
    } catch (err) {
      finished = true;
      // RPC failures were already logged once by the observe interceptor.
      return sendError(reply, err, requestId);
    }
    forwardHeaders(res.header, (n, v) => void reply.header(n, v));
    const output = route.method.output;
    async function* body(): AsyncGenerator<string> {
      let exported = 0;
      let current = first;
      try {
        yield writer.head();
        while (current.done !== true) {
          const posts = (
            toJson(output, current.value, { useProtoFieldName: true, alwaysEmitImplicit: true }) as {
              posts: Record<string, unknown>[];
            }
          ).posts;
          yield posts.map((p) => writer.post(p)).join("");
          exported += posts.length;
          current = await messages.next();
        }
        yield writer.end(exported);
      } catch (err) {
        yield writer.stop(stopOf(err, requestId), exported);
      } finally {
        finished = true;
        await messages.return?.();
      }
    }
    return reply.code(200).type(writer.contentType).header("cache-control", "no-store").send(Readable.from(body()));
  };
  const paths = [route.path, aliasPath(route.path)].filter((p): p is string => p !== undefined);
  for (const url of paths) {
    app.route({ method: "POST", url: fastifyPath(url), handler });
    app.route({
      method: ["GET", "PUT", "PATCH", "DELETE"],
      url: fastifyPath(url),
      handler: async (req, reply) => {
        reply.header("allow", "POST");
        return sendError(
          reply,
          new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url}; use POST`),
          String(req.id),
        );
      },
    });
  }
}
