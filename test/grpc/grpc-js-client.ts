/**
 * A real @grpc/grpc-js client for any protobuf-es service descriptor: the grpc-js service
 * definition is derived from the DescService (paths, streaming flags, protobuf-es binary
 * serializers), so tests talk to our server exactly as an external Node gRPC client would.
 */

import type {
  DescMessage,
  DescMethodServerStreaming,
  DescMethodUnary,
  DescService,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

/** grpc-js method definitions for every RPC of `service`, keyed by RPC name. */
export function grpcJsDefinition(service: DescService): grpc.ServiceDefinition {
  return Object.fromEntries(
    service.methods.map((method) => [
      method.name,
      {
        path: `/${service.typeName}/${method.name}`,
        requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
        responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
        originalName: method.localName,
        ...codec("request", method.input),
        ...codec("response", method.output),
      } as grpc.MethodDefinition<unknown, unknown>,
    ]),
  );
}

function codec(side: "request" | "response", schema: DescMessage) {
  return {
    [`${side}Serialize`]: (value: MessageShape<DescMessage>) => Buffer.from(toBinary(schema, value)),
    [`${side}Deserialize`]: (bytes: Buffer) => fromBinary(schema, bytes),
  };
}

/** A grpc-js client for `service` at `address` (host:port), over plaintext HTTP/2. */
export function createGrpcJsClient(service: DescService, address: string): grpc.Client {
  const Client = grpc.makeGenericClientConstructor(grpcJsDefinition(service), service.name);
  return new Client(address, grpc.credentials.createInsecure());
}

/** Calls a unary RPC through the generic client's method; rejects with the grpc-js ServiceError. */
export function callUnary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: DescMethodUnary<I, O>,
  request: MessageInitShape<I>,
  options: grpc.CallOptions = { deadline: Date.now() + 10_000 },
): Promise<MessageShape<O>> {
  const fn = rpc(client, method.name);
  return new Promise((resolve, reject) => {
    fn.call(
      client,
      create(method.input, request),
      new grpc.Metadata(),
      options,
      (err: grpc.ServiceError | null, res?: MessageShape<O>) => {
        if (err) reject(err);
        else if (res) resolve(res);
        else reject(new Error(`${method.name} returned neither a response nor an error`));
      },
    );
  });
}

/** Starts a server-streaming RPC through the generic client's method, with optional request metadata. */
export function callServerStream<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: DescMethodServerStreaming<I, O>,
  request: MessageInitShape<I>,
  options: grpc.CallOptions = {},
  metadata: Record<string, string> = {},
): grpc.ClientReadableStream<MessageShape<O>> {
  const fn = rpc(client, method.name);
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return fn.call(client, create(method.input, request), md, options) as grpc.ClientReadableStream<MessageShape<O>>;
}

// makeGenericClientConstructor attaches one method per RPC name; grpc-js types them loosely.
function rpc(client: grpc.Client, name: string): (...args: unknown[]) => unknown {
  const fn = (client as unknown as Record<string, unknown>)[name];
  if (typeof fn !== "function") throw new Error(`grpc-js client has no method ${name}`);
  return fn as (...args: unknown[]) => unknown;
}

/** Outcome of a unary call with its metadata: the response or the error, plus headers and trailers. */
export interface UnaryOutcome<O> {
  response?: O;
  error?: grpc.ServiceError;
  header: grpc.Metadata;
  trailer: grpc.Metadata;
}

/** Calls a unary RPC with request metadata and captures response headers and trailers. */
export function callUnaryWithMetadata<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: DescMethodUnary<I, O>,
  request: MessageInitShape<I>,
  metadata: Record<string, string>,
  options: grpc.CallOptions = { deadline: Date.now() + 10_000 },
): Promise<UnaryOutcome<MessageShape<O>>> {
  const fn = rpc(client, method.name);
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise((resolve) => {
    let header = new grpc.Metadata();
    let trailer = new grpc.Metadata();
    let result: { response?: MessageShape<O>; error?: grpc.ServiceError } | undefined;
    let statusSeen = false;
    const finish = (): void => {
      if (result !== undefined && statusSeen) resolve({ ...result, header, trailer });
    };
    const call = fn.call(
      client,
      create(method.input, request),
      md,
      options,
      (err: grpc.ServiceError | null, res?: MessageShape<O>) => {
        result = err ? { error: err } : { response: res! };
        if (err) trailer = err.metadata;
        finish();
      },
    ) as grpc.ClientUnaryCall;
    call.on("metadata", (m: grpc.Metadata) => {
      header = m;
    });
    call.on("status", (s: grpc.StatusObject) => {
      trailer = s.metadata;
      statusSeen = true;
      finish();
    });
  });
}
