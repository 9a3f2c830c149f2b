/**
 * The REST transcoding gateway: one Fastify route per google.api.http annotation (plus the /v1
 * alias), each parsing the JSON body strictly into the request message and calling the RPC
 * through Connect's in-memory transport. That transport runs the same router, interceptors
 * (auth, limits, deadlines, metrics) and handlers as gRPC, so the two cannot drift apart.
 * Registered as an encapsulated plugin: its JSON parser and error handler do not leak into the
 * Connect plugin, which needs raw bodies.
 */

import type { DescService, JsonValue } from "@bufbuild/protobuf";
import { toJson } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../errors/app-error.js";
import { ACCEPTED_BODY_ENCODINGS, CONTENT_ENCODING_FIELD, decodeBody } from "./body-encoding.js";
import { findDuplicateKey } from "./duplicate-keys.js";
import { forwardHeaders } from "./envelope.js";
import { registerEventStream } from "./event-stream.js";
import { registerExportRoute } from "./export-route.js";
import type { RestRoute } from "./http-rules.js";
import { aliasPath, restRoutes, streamRoutes } from "./http-rules.js";
import { encodeAnswer } from "./response-encoding.js";
import { clientGone, decodeInput, fastifyPath, rpcHeaders, sendError } from "./rest-call.js";

/** Options of the gateway plugin. */
export interface GatewayOptions {
  services: readonly DescService[];
  /** In-memory transport over the same router and interceptors that serve gRPC. */
  transport: Transport;
  maxBodyBytes: number;
}

const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function registerRoute(app: FastifyInstance, route: RestRoute, transport: Transport): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    let data: JsonValue;
    try {
      const headers = rpcHeaders(req);
      const input = decodeInput(route.method.input, route.body === "" ? {} : req.body, headers);
      const res = await transport.unary(route.method, clientGone(req, reply), undefined, headers, input);
      forwardHeaders(res.header, (n, v) => void reply.header(n, v));
      forwardHeaders(res.trailer, (n, v) => void reply.header(n, v));
      data = toJson(route.method.output, res.message, { useProtoFieldName: true, alwaysEmitImplicit: true });
    } catch (err) {
      // RPC failures were already logged once by the observe interceptor.
      return sendError(reply, err, String(req.id));
    }
    const { body, encoding } = await encodeAnswer(
      JSON.stringify({ success: true, data }),
      req.headers["accept-encoding"],
    );
    // Caches must not serve a gzipped answer to a client that did not ask for one; the CORS hook
    // may have said Vary: Origin already.
    const vary = reply.getHeader("vary");
    reply.header("vary", vary === undefined || vary === "" ? "Accept-Encoding" : `${String(vary)}, Accept-Encoding`);
    if (encoding !== "") reply.header("content-encoding", encoding);
    return reply.type("application/json; charset=utf-8").send(body);
  };
  const paths = [route.path, aliasPath(route.path)].filter((p): p is string => p !== undefined);
  const others = ALL_METHODS.filter((m) => m !== route.httpMethod);
  for (const url of paths) {
    app.route({ method: route.httpMethod, url: fastifyPath(url), handler });
    app.route({
      method: [...others],
      url: fastifyPath(url),
      handler: async (req, reply) => {
        reply.header("allow", route.httpMethod === "GET" ? "GET, HEAD" : route.httpMethod);
        return sendError(
          reply,
          new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url}; use ${route.httpMethod}`),
          String(req.id),
        );
      },
    });
  }
}

/** Fastify plugin: the REST gateway. */
export async function restGateway(app: FastifyInstance, opts: GatewayOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: opts.maxBodyBytes },
    (req, body, done) => {
      let text: string;
      try {
        text = decodeBody(body as Buffer, req.headers["content-encoding"], opts.maxBodyBytes).toString("utf8");
      } catch (err) {
        return done(err as Error, undefined);
      }
      if (text.trim() === "") return done(null, undefined);
      try {
        const parsed: unknown = JSON.parse(text);
        const duplicate = findDuplicateKey(text);
        if (duplicate !== undefined) {
          return done(
            new AppError(
              "MALFORMED_JSON",
              `the request body has the key "${duplicate}" more than once in one object; send each key once`,
            ),
            undefined,
          );
        }
        done(null, parsed);
      } catch (cause) {
        done(
          new AppError(
            "MALFORMED_JSON",
            `the request body is not valid JSON: ${(cause as Error).message}`,
            {},
            { cause },
          ),
          undefined,
        );
      }
    },
  );
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const code = (err as { code?: string }).code;
    let mapped: unknown = err;
    if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      mapped = new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        `Content-Type must be application/json, got "${req.headers["content-type"] ?? ""}"`,
      );
    } else if (code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      mapped = new AppError("PAYLOAD_TOO_LARGE", `the request body must be at most ${opts.maxBodyBytes} bytes`);
    } else if (code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH" || code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
      mapped = new AppError("MALFORMED_JSON", "the request body is empty or its length does not match Content-Length");
    }
    if (mapped instanceof AppError && mapped.metadata.field === CONTENT_ENCODING_FIELD)
      reply.header("accept-encoding", ACCEPTED_BODY_ENCODINGS);
    if (!(mapped instanceof AppError) && (err.statusCode ?? 500) >= 500) req.log.error({ err }, "gateway failure");
    return sendError(reply, mapped, String(req.id));
  });
  for (const route of restRoutes(opts.services)) registerRoute(app, route, opts.transport);
  for (const route of streamRoutes(opts.services)) registerExportRoute(app, route, opts.transport);
  registerEventStream(app, opts.transport);
}
