/**
 * WatchMonitor's REST form: `GET /api/v1/monitors/{monitor_id}/events` as Server-Sent Events.
 * The stream is opened through the same in-memory transport as every REST call, so auth, limits
 * and metrics apply exactly as on gRPC (a stream is one call). Errors found before the stream
 * opens (no key, unknown monitor, bad resume id) answer in the usual envelope and status; after
 * that each event is one SSE message whose `id:` is the event id, so an EventSource that
 * reconnects sends Last-Event-ID and resumes after it.
 */
import { toJson } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { WatchMonitorResponse } from "../../gen/threadsight/v1/monitors_pb.js";
import { MonitorEventSchema, MonitorService } from "../../gen/threadsight/v1/monitors_pb.js";
import { AppError } from "../errors/app-error.js";
import { forwardHeaders } from "./envelope.js";
import { rpcHeaders, sendError } from "./rest-call.js";

/** The route of the event stream. */
export const EVENT_STREAM_PATH = "/api/v1/monitors/:monitor_id/events";

/** Query parameters the route reads. */
const QUERY_KEYS = ["since"] as const;

/** What an SSE client waits before reconnecting, ms (the `retry:` field). */
export const EVENT_STREAM_RETRY_MS = 2_000;

/** The event id to resume after: Last-Event-ID (what EventSource sends) wins over `since`. */
function resumeId(req: FastifyRequest): string {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).find((k) => !(QUERY_KEYS as readonly string[]).includes(k));
  if (unknown !== undefined) {
    throw new AppError("INVALID_ARGUMENT", `unknown query parameter "${unknown}"; this route reads: since`, {
      field: unknown,
    });
  }
  const header = req.headers["last-event-id"];
  if (typeof header === "string" && header.trim() !== "") return header.trim();
  const since = query.since;
  if (since === undefined) return "";
  if (typeof since !== "string")
    throw new AppError("INVALID_ARGUMENT", "since must be given once, as an event id", { field: "since" });
  return since;
}

/** Writes one chunk, waiting while the socket's buffer is full. */
async function write(reply: FastifyReply, chunk: string): Promise<void> {
  if (reply.raw.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      reply.raw.off("drain", done);
      reply.raw.off("close", done);
      resolve();
    };
    reply.raw.on("drain", done);
    reply.raw.on("close", done);
  });
}

/** Registers the event-stream route on the gateway. */
export function registerEventStream(app: FastifyInstance, transport: Transport): void {
  app.get(EVENT_STREAM_PATH, async (req, reply) => {
    const controller = new AbortController();
    reply.raw.once("close", () => controller.abort(new AppError("CANCELED", "the client closed the connection")));
    let messages: AsyncIterator<WatchMonitorResponse>;
    let header: Headers;
    try {
      const input = { monitorId: (req.params as { monitor_id: string }).monitor_id, afterEventId: resumeId(req) };
      const res = await transport.stream(
        MonitorService.method.watchMonitor,
        controller.signal,
        undefined,
        rpcHeaders(req),
        createAsyncIterable([input]),
      );
      messages = res.message[Symbol.asyncIterator]();
      // The first message says the monitor was found and the resume point is set.
      await messages.next();
      header = res.header;
    } catch (err) {
      controller.abort();
      return sendError(reply, err, String(req.id));
    }
    forwardHeaders(header, (n, v) => void reply.header(n, v));
    reply.hijack();
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    });
    await write(reply, `retry: ${EVENT_STREAM_RETRY_MS}\n: open\n\n`);
    try {
      for (;;) {
        const next = await messages.next();
        if (next.done === true) break;
        const m = next.value;
        if (m.event === undefined) {
          await write(reply, ": keep-alive\n\n");
          continue;
        }
        const data = JSON.stringify(
          toJson(MonitorEventSchema, m.event, { useProtoFieldName: true, alwaysEmitImplicit: true }),
        );
        await write(reply, `id: ${m.event.id}\ndata: ${data}\n\n`);
      }
    } catch (err) {
      if (!controller.signal.aborted) {
        req.log.warn({ err }, "event stream ended by an error");
        await write(reply, `event: error\ndata: ${JSON.stringify({ message: "the stream ended; reconnect" })}\n\n`);
      }
    }
    controller.abort();
    reply.raw.end();
  });
}
