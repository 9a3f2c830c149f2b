/**
 * Fault: a client sends a message over MAX_BODY_BYTES (docs/RELIABILITY.md, "Bad input").
 *
 * Expected behaviour, written before the fix:
 * - The answer comes before the body has been read: REST 413 with the error envelope
 *   (`PAYLOAD_TOO_LARGE`), Connect 429 `resource_exhausted`, gRPC and gRPC-Web
 *   RESOURCE_EXHAUSTED naming the limit.
 * - HTTP/1.1 (REST, Connect, gRPC-Web): the answer says `Connection: close` and the server ends
 *   the connection; the client's write of the rest of its body completes (the server drains
 *   it for a bounded time instead of resetting the socket), with or without Content-Length.
 * - HTTP/2: after the answer the server resets the stream with NO_ERROR, so the client's stream
 *   closes without the client cancelling it; the same session then carries a valid call.
 * - Shutdown: app.close() completes with an HTTP/2 session still open that carried an oversized
 *   stream, with an idle session that never made a call, and with a TCP connection that never
 *   sent a byte. (Before the fix the first two kept close() waiting indefinitely.)
 *
 * Uses buildServer with a stand-in authenticator and handler: the size limit is enforced before
 * either runs, so nothing else of the service is needed.
 */
import assert from "node:assert/strict";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import type { FastifyInstance } from "fastify";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import type { AuthResult } from "../../src/accounts/caller.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";

const MAX_BODY = 65_536;
/** Large enough that the kernel's socket buffers cannot absorb it unread. */
const BIG = 2_000_000;
const SEMANTIC = "/threadsight.v1.SearchService/SemanticSearch";

const authenticator = {
  async authenticate(key: string | undefined): Promise<AuthResult> {
    return key === "good"
      ? { ok: true, caller: { keyId: "k", accountId: "a", plan: "pro", overrides: {} } }
      : { ok: false, failure: key === undefined ? "missing" : "unknown" };
  },
};

/**
 * The app on a free port. shutdownTimeoutMs is long, so a call the server wrongly thinks is
 * still in flight makes close() outlast the tests' bound instead of being cut at the timeout.
 */
async function start(): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildServer({
    config: {
      maxBodyBytes: MAX_BODY,
      requestTimeoutMs: 5000,
      shutdownTimeoutMs: 60_000,
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
    },
    logger: createLogger("warn", new Writable({ write: (_c, _e, done) => done() })),
    metrics: createRpcMetrics(),
    authenticator,
    implementations: {
      search: {
        async semanticSearch() {
          return { results: [] };
        },
      },
    },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, port: (app.server.address() as { port: number }).port };
}

/** What an HTTP/1.1 client saw when posting `size` bytes it had announced (or sent chunked). */
interface H1Outcome {
  status: number;
  connection: string | undefined;
  body: Buffer;
  /** The client finished writing its whole body without an error. */
  wroteAll: boolean;
  error?: string;
}

function postH1(
  port: number,
  path: string,
  contentType: string,
  body: Buffer,
  chunked: boolean,
  keepAlive = false,
): Promise<H1Outcome> {
  return new Promise((resolve) => {
    const out: H1Outcome = { status: 0, connection: undefined, body: Buffer.alloc(0), wroteAll: false };
    const agent = new http.Agent({ keepAlive });
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path,
      agent,
      headers: {
        "content-type": contentType,
        authorization: "Bearer good",
        ...(chunked ? {} : { "content-length": String(body.length) }),
      },
    });
    req.on("response", (res) => {
      out.status = res.statusCode ?? 0;
      out.connection = res.headers.connection;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => (out.body = Buffer.concat(chunks)));
    });
    req.on("error", (err) => (out.error = err.message));
    req.on("close", () => {
      agent.destroy();
      resolve(out);
    });
    req.write(body, (err) => (out.wroteAll = !err));
    req.end();
  });
}

function grpcFrame(message: Buffer, flags = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/** A SemanticSearchRequest whose query (field 1) is `n` bytes long. */
function queryMessage(n: number): Buffer {
  const len: number[] = [];
  for (let v = n; ; v >>>= 7) {
    if (v < 0x80) {
      len.push(v);
      break;
    }
    len.push((v & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...len]), Buffer.alloc(n, "q")]);
}

/** One unary gRPC call on an HTTP/2 session; the client never cancels its own stream. */
function h2Call(
  session: http2.ClientHttp2Session,
  body: Buffer,
  cancelAfterTrailers = false,
): Promise<{ grpcStatus?: string; grpcMessage?: string; rstCode: number }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": SEMANTIC,
      "content-type": "application/grpc+proto",
      te: "trailers",
      authorization: "Bearer good",
    });
    const meta: { grpcStatus?: string; grpcMessage?: string } = {};
    const take = (h: http2.IncomingHttpHeaders): void => {
      if (h["grpc-status"] !== undefined) meta.grpcStatus = String(h["grpc-status"]);
      if (h["grpc-message"] !== undefined) meta.grpcMessage = decodeURIComponent(String(h["grpc-message"]));
    };
    stream.on("response", take);
    stream.on("trailers", (h) => {
      take(h);
      // What a client that stops sending once it has the status does (the fuzz suite's client).
      if (cancelAfterTrailers && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.on("data", () => {});
    stream.on("error", reject);
    stream.on("close", () => resolve({ ...meta, rstCode: stream.rstCode ?? -1 }));
    stream.end(body);
  });
}

/** Fails the test if `p` has not settled within `ms` (a bound against a hang, not a speed claim). */
async function within<T>(what: string, p: Promise<T>, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("oversized messages over HTTP/1.1", () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => ({ app, port } = await start()));
  after(async () => app?.close());

  for (const chunked of [false, true]) {
    const framing = chunked ? "chunked" : "Content-Length";
    test(`REST (${framing}): 413 with the error envelope, Connection: close, the client's write completes`, async () => {
      const out = await within(
        "the REST call",
        postH1(port, "/api/v1/search/semantic", "application/json", Buffer.alloc(BIG, " "), chunked),
      );
      assert.equal(out.status, 413);
      const envelope = JSON.parse(out.body.toString()) as {
        success: boolean;
        error: { code: string; reason: string; message: string };
      };
      assert.equal(envelope.success, false);
      assert.equal(envelope.error.reason, "PAYLOAD_TOO_LARGE");
      assert.match(envelope.error.message, /at most 65536 bytes/);
      assert.equal(out.connection, "close");
      assert.equal(out.error, undefined, "no reset or EPIPE on the client");
      assert.ok(out.wroteAll, "the client wrote its whole body");
    });

    test(`Connect JSON (${framing}): 429 resource_exhausted naming the limit, Connection: close, the client's write completes`, async () => {
      const body = Buffer.concat([Buffer.from('{"query":"'), Buffer.alloc(BIG, "q"), Buffer.from('"}')]);
      const out = await within("the Connect call", postH1(port, SEMANTIC, "application/json", body, chunked));
      assert.equal(out.status, 429);
      const error = JSON.parse(out.body.toString()) as { code: string; message: string };
      assert.equal(error.code, "resource_exhausted");
      assert.match(error.message, /larger than configured readMaxBytes 65536/);
      assert.equal(out.connection, "close");
      assert.equal(out.error, undefined, "no reset or EPIPE on the client");
      assert.ok(out.wroteAll, "the client wrote its whole body");
    });
  }

  test("gRPC-Web: RESOURCE_EXHAUSTED in the trailer frame, Connection: close, the client's write completes", async () => {
    const out = await within(
      "the gRPC-Web call",
      postH1(port, SEMANTIC, "application/grpc-web+proto", grpcFrame(queryMessage(BIG)), false),
    );
    assert.equal(out.status, 200);
    const trailer = out.body.toString("latin1");
    assert.match(trailer, /grpc-status: ?8/);
    assert.match(decodeURIComponent(trailer), /larger than configured readMaxBytes 65536/);
    assert.equal(out.connection, "close");
    assert.equal(out.error, undefined);
    assert.ok(out.wroteAll, "the client wrote its whole body");
  });

  test("fetch (undici): 413 with the envelope", async () => {
    const res = await within(
      "fetch",
      fetch(`http://127.0.0.1:${port}/api/v1/search/semantic`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer good" },
        body: Buffer.alloc(BIG, " "),
      }),
    );
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { reason: string } }).error.reason, "PAYLOAD_TOO_LARGE");
  });

  test("a body within the limit still uses a kept-alive connection", async () => {
    const out = await postH1(
      port,
      "/api/v1/search/semantic",
      "application/json",
      Buffer.from('{"query":"fine"}'),
      false,
      true,
    );
    assert.equal(out.status, 200, out.body.toString());
    assert.notEqual(out.connection, "close");
  });
});

describe("oversized messages over HTTP/2, and shutdown", () => {
  test("the oversized stream is answered and closed by the server; the session carries the next call; close() completes", async () => {
    const { app, port } = await start();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => {});
    try {
      const big = await within("the oversized gRPC call", h2Call(session, grpcFrame(queryMessage(BIG))));
      assert.equal(big.grpcStatus, "8", "RESOURCE_EXHAUSTED");
      assert.match(big.grpcMessage ?? "", /larger than configured readMaxBytes 65536/);
      assert.equal(
        big.rstCode,
        http2.constants.NGHTTP2_NO_ERROR,
        "closed by the server's NO_ERROR reset, not a cancel",
      );
      const next = await within("a valid call on the same session", h2Call(session, grpcFrame(queryMessage(5))));
      assert.equal(next.grpcStatus, "0");
      const goaway = new Promise<void>((resolve) => session.once("goaway", () => resolve()));
      await within("app.close() with the reused session open", app.close());
      await within("the client to receive GOAWAY", goaway);
    } finally {
      session.destroy();
    }
  });

  test("a client that cancels its own oversized stream after the answer: close() still completes", async () => {
    const { app, port } = await start();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => {});
    try {
      const big = await within("the oversized gRPC call", h2Call(session, grpcFrame(queryMessage(BIG)), true));
      assert.equal(big.grpcStatus, "8");
      session.destroy();
      await within("app.close() after the client dropped its session", app.close());
    } finally {
      session.destroy();
    }
  });

  test("grpc-js: an oversized message is RESOURCE_EXHAUSTED and the channel keeps working", async () => {
    const { app, port } = await start();
    const client = createGrpcJsClient(SearchService, `127.0.0.1:${port}`);
    try {
      const big = await within(
        "the oversized call",
        callUnaryWithMetadata(
          client,
          SearchService.method.semanticSearch,
          { query: "q".repeat(BIG), limit: 5 },
          { authorization: "Bearer good" },
        ),
      );
      assert.equal(big.error?.code, grpc.status.RESOURCE_EXHAUSTED, String(big.error?.details));
      assert.match(String(big.error?.details), /larger than configured readMaxBytes 65536/);
      const ok = await within(
        "the next call",
        callUnaryWithMetadata(
          client,
          SearchService.method.semanticSearch,
          { query: "fine", limit: 5 },
          { authorization: "Bearer good" },
        ),
      );
      assert.equal(ok.error, undefined);
      await within("app.close() with the grpc-js channel connected", app.close());
    } finally {
      client.close();
    }
  });

  test("close() completes with an idle HTTP/2 session and a connection that never sent a byte", async () => {
    const { app, port } = await start();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => {});
    const silent = net.connect(port, "127.0.0.1");
    const connected = new Promise((resolve) => silent.once("connect", resolve));
    silent.on("error", () => {});
    try {
      await new Promise((resolve) => session.once("remoteSettings", resolve));
      await connected;
      await within("app.close() with idle connections", app.close());
    } finally {
      session.destroy();
      silent.destroy();
    }
  });
});
