/**
 * Builds the OpenAPI 3.1 document of the REST contract from the same inputs the gateway uses:
 * the services' google.api.http annotations (restRoutes), their request and response messages,
 * the request rules, the error table and the limit headers. Nothing about the API is written
 * here by hand except prose, so the document changes exactly when the contract does.
 */
import type { DescService } from "@bufbuild/protobuf";
import { MonitorEventSchema, MonitorService } from "../../gen/threadsight/v1/monitors_pb.js";
import { KEY_PREFIX } from "../accounts/key-format.js";
import { EVENT_STREAM_PATH, EVENT_STREAM_RETRY_MS } from "../gateway/event-stream.js";
import { CSV_COLUMNS } from "../gateway/export-format.js";
import type { RestRoute, StreamRoute } from "../gateway/http-rules.js";
import { aliasPath, restRoutes, streamRoutes } from "../gateway/http-rules.js";
import { operationOf } from "../limits/operations.js";
import {
  errorBodySchema,
  errorResponseComponents,
  errorResponseName,
  operationErrorStatuses,
} from "./error-responses.js";
import { REQUEST_FIELD_RULES, RESPONSE_FIELD_RULES } from "./field-rules.js";
import { headerComponents, responseHeaders } from "./header-docs.js";
import type { JsonSchema, SchemaContext } from "./json-schema.js";
import { assertRulesUsed, componentFor, schemaContext } from "./json-schema.js";
import type { CommentLookup } from "./proto-comments.js";

/** Inputs of the document. */
export interface DocumentInput {
  services: readonly DescService[];
  /** Proto comments, for descriptions. */
  comments: CommentLookup;
  /** info.version: the package version. */
  version: string;
}

/** The name of the bearer security scheme. */
export const SECURITY_SCHEME = "bearerAuth";

const DESCRIPTION = [
  "The REST contract of Threadsight, generated from its protobuf definitions (the same RPCs are served over gRPC, Connect and gRPC-Web on the same port).",
  'Every call needs `Authorization: Bearer <API key>`. A success is `{"success": true, "data": {...}}` with every field present; an error is `{"success": false, "error": {"code", "reason", "message", "request_id"}}` with a stable `reason`.',
  "Metered operations (all but GetUsage) count toward the key's quota and answer with rate-limit and quota headers.",
  "Every path is also served without the `/api` prefix (`/v1/search/semantic`), so a base URL ending in `/v1` works; the aliases are not listed as separate operations, which would duplicate every operation id.",
].join("\n\n");

/** A short operation summary from the RPC name: "SemanticSearch" -> "Semantic search". */
function summaryOf(rpcName: string): string {
  const words = rpcName.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function successResponse(ctx: SchemaContext, route: RestRoute, metered: boolean): JsonSchema {
  return {
    description: "The call succeeded.",
    headers: responseHeaders({ metered, success: true }),
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: {
            success: { type: "boolean", const: true },
            data: { $ref: `#/components/schemas/${componentFor(ctx, route.method.output, "response")}` },
          },
          required: ["success", "data"],
          additionalProperties: false,
        },
      },
    },
  };
}

function operation(ctx: SchemaContext, route: RestRoute): JsonSchema {
  const { method } = route;
  const rpc = `${method.parent.typeName}/${method.name}`;
  const metered = operationOf(method.parent.typeName, method.name) !== undefined;
  const comment = ctx.comments(`${method.parent.typeName}.${method.name}`) ?? method.name;
  const alias = aliasPath(route.path);
  const notes = [
    `gRPC: \`${rpc}\`.`,
    metered ? "Counts toward the quota." : "Free: never counts toward the quota.",
    ...(alias !== undefined ? [`Also served at \`${alias}\`.`] : []),
  ];
  const op: JsonSchema = {
    tags: [method.parent.name],
    operationId: method.localName,
    summary: summaryOf(method.name),
    description: `${comment}\n\n${notes.join(" ")}`,
  };
  if (route.body === "*") {
    const name = componentFor(ctx, method.input, "request");
    const schema = ctx.components.get(name)!;
    op.requestBody = {
      required: Array.isArray(schema.required) && schema.required.length > 0,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  } else if (route.body === "" && method.input.fields.length > 0) {
    // The gateway maps no query parameters; a field here would be unreachable over REST.
    throw new Error(`${rpc}: a bodiless route's request must have no fields`);
  } else if (route.body !== "") {
    throw new Error(`${rpc}: body "${route.body}" is not supported (use "*")`);
  }
  const responses: JsonSchema = { "200": successResponse(ctx, route, metered) };
  for (const status of operationErrorStatuses())
    responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  op.responses = responses;
  return op;
}

/**
 * A streaming route (ExportPosts): the same request body, and a 200 that is NDJSON (one element
 * of the response message's repeated field per line) or CSV, ending with a line saying how the
 * stream ended (gateway/export-format.ts).
 */
function streamOperation(ctx: SchemaContext, route: StreamRoute): JsonSchema {
  const { method } = route;
  const rpc = `${method.parent.typeName}/${method.name}`;
  const comment = ctx.comments(`${method.parent.typeName}.${method.name}`) ?? method.name;
  const alias = aliasPath(route.path);
  const item = method.output.fields.find((f) => f.fieldKind === "list" && f.listKind === "message");
  if (item === undefined || item.fieldKind !== "list" || item.listKind !== "message")
    throw new Error(`${rpc}: a streaming route's response must hold a repeated message field`);
  const input = componentFor(ctx, method.input, "request");
  const line = componentFor(ctx, item.message, "response");
  const notes = [
    `gRPC: \`${rpc}\` (server streaming).`,
    "Counts toward the quota: one call per started 1,000 posts (see docs/guides/search-filters.md).",
    ...(alias !== undefined ? [`Also served at \`${alias}\`.`] : []),
  ];
  const responses: JsonSchema = {
    "200": {
      description:
        'The export, streamed. NDJSON: one object per line, then `{"end":{"exported":N}}` when complete or `{"error":{...,"exported":N}}` when it stopped early (the quota ran out). CSV: a header row, one row per post, then `#end,N` or `#error,REASON,message,N`.',
      headers: responseHeaders({ metered: true, success: true }),
      content: {
        "application/x-ndjson": { schema: { $ref: `#/components/schemas/${line}` } },
        "text/csv": {
          schema: { type: "string", description: `Columns: ${CSV_COLUMNS.join(", ")}.` },
        },
      },
    },
  };
  for (const status of operationErrorStatuses(true))
    responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return {
    tags: [method.parent.name],
    operationId: method.localName,
    summary: summaryOf(method.name),
    description: `${comment}\n\n${notes.join(" ")}`,
    requestBody: {
      required: false,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${input}` } } },
    },
    responses,
  };
}

/** The SSE route's path in OpenAPI spelling: `{monitor_id}` for fastify's `:monitor_id`. */
export const EVENT_STREAM_OPENAPI_PATH = EVENT_STREAM_PATH.replace(/:([a-z_]+)/g, "{$1}");

/**
 * WatchMonitor's REST form (gateway/event-stream.ts), which has no google.api.http rule because
 * it is a GET answered as Server-Sent Events: a path parameter, the resume point as a header or
 * a query parameter, and a 200 whose `data:` lines are MonitorEvent objects.
 */
function eventStreamOperation(ctx: SchemaContext): JsonSchema {
  const method = MonitorService.method.watchMonitor;
  const rpc = `${method.parent.typeName}/${method.name}`;
  const event = componentFor(ctx, MonitorEventSchema, "response");
  const format = [
    "Server-Sent Events, one message per event, oldest first, then live ones as they are matched:",
    "",
    "```",
    `retry: ${EVENT_STREAM_RETRY_MS}`,
    ": open",
    "",
    "id: evt_000000001a",
    'data: {"id":"evt_000000001a","monitor_id":"mon_...","create_time":"...","post":{...},"reason":{...}}',
    "",
    ": keep-alive",
    "```",
    "",
    `Each \`data:\` line is one [MonitorEvent](#/components/schemas/${event}) as JSON (every field present); its \`id:\` is the event id. A comment line (\`: keep-alive\`) comes after 15 s without an event. If the server ends the stream it sends \`event: error\` first; reconnect with Last-Event-ID.`,
  ].join("\n");
  const responses: JsonSchema = {
    "200": {
      description: `The stream is open.\n\n${format}`,
      headers: responseHeaders({ metered: true, success: true }),
      content: { "text/event-stream": { schema: { type: "string", description: format } } },
    },
  };
  for (const status of operationErrorStatuses())
    responses[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return {
    tags: [method.parent.name],
    operationId: method.localName,
    summary: "Watch monitor events",
    description: `${ctx.comments(`${method.parent.typeName}.${method.name}`) ?? method.name}\n\ngRPC: \`${rpc}\` (server streaming). Counts toward the quota as one call per stream. Errors found before the stream opens (no key, unknown monitor, a bad resume id) answer in the JSON error envelope with their status; after that the response is the event stream.`,
    parameters: [
      {
        name: "monitor_id",
        in: "path",
        required: true,
        description: "Identifier of a monitor of the caller's account.",
        schema: { type: "string" },
      },
      {
        name: "since",
        in: "query",
        required: false,
        description:
          "Resume after this event id (`evt_` and 10 base-36 digits): every later event is sent first, then live ones. Absent: new events only. Last-Event-ID wins when both are given.",
        schema: { type: "string" },
      },
      {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description:
          "The `id:` of the last event received, as EventSource sends it when it reconnects; the stream resumes after it.",
        schema: { type: "string" },
      },
    ],
    responses,
  };
}

function sortedByKey<T>(record: Map<string, T>): Record<string, T> {
  return Object.fromEntries([...record.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The OpenAPI 3.1 document. Deterministic: the same inputs give the same JSON. */
export function buildOpenApi(input: DocumentInput): JsonSchema {
  const ctx = schemaContext(input.comments, REQUEST_FIELD_RULES, RESPONSE_FIELD_RULES);
  const paths: Record<string, JsonSchema> = {};
  for (const route of restRoutes(input.services)) {
    const item = (paths[route.path] ??= {});
    item[route.httpMethod.toLowerCase()] = operation(ctx, route);
  }
  for (const route of streamRoutes(input.services)) (paths[route.path] ??= {}).post = streamOperation(ctx, route);
  if (input.services.some((s) => s.typeName === MonitorService.typeName))
    (paths[EVENT_STREAM_OPENAPI_PATH] ??= {}).get = eventStreamOperation(ctx);
  assertRulesUsed(ctx);
  const schemas = new Map(ctx.components);
  if (schemas.has("ErrorBody"))
    throw new Error("a proto message named ErrorBody would hide the error envelope's schema");
  schemas.set("ErrorBody", errorBodySchema());
  return {
    openapi: "3.1.0",
    info: {
      title: "Threadsight API",
      version: input.version,
      description: DESCRIPTION,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "The host serving this document." }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: input.services.map((s) => ({
      name: s.name,
      ...(input.comments(s.typeName) !== undefined ? { description: input.comments(s.typeName) } : {}),
    })),
    paths,
    components: {
      schemas: sortedByKey(schemas),
      responses: errorResponseComponents(),
      headers: headerComponents(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: `An API key (\`${KEY_PREFIX}...\`) from \`threadsight keys create\` or the developer portal.`,
        },
      },
    },
  };
}

/** The document as committed and served: two-space JSON with a trailing newline. */
export function serializeOpenApi(doc: JsonSchema): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
