/**
 * Slow and silent clients are cut off by the one-port server's connection deadlines, over real
 * loopback sockets and node:http2 clients: a silent TCP connection, a bare HTTP/2 preface, HTTP/1.1
 * headers that never finish, an idle HTTP/2 session, an idle keep-alive connection, slow bodies on
 * both protocols; plus the concurrent-stream and per-address connection caps.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import tls from "node:tls";
import type { FastifyInstance } from "fastify";
import type { AuthResult } from "../../src/accounts/caller.js";
import { createLogger } from "../../src/observability/logger.js";
import { createRpcMetrics } from "../../src/observability/metrics.js";
import { buildServer } from "../../src/server.js";
import type { ConnectionLimits } from "../../src/transport/connection-limits.js";

const LIMITS: ConnectionLimits = {
  firstBytesTimeoutMs: 400,
  headersTimeoutMs: 400,
  requestBodyTimeoutMs: 800,
  keepAliveTimeoutMs: 400,
  http2IdleTimeoutMs: 500,
  http2MaxConcurrentStreams: 2,
  maxConnectionsPerAddress: 3,
};
/** Slack on top of a deadline: Node checks HTTP/1.1 deadlines on an interval, and CI is shared. */
const SLACK_MS = 1_500;

/** Resolves with the ms until `socket` closes; rejects if it is still open after `withinMs`. */
function closesWithin(socket: net.Socket, withinMs: number): Promise<{ ms: number; data: string }> {
  const start = Date.now();
  let data = "";
  socket.setEncoding("utf8").on("data", (c: string) => (data += c));
  socket.on("error", () => undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${withinMs} ms`));
    }, withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ ms: Date.now() - start, data });
    });
  });
}

function connect(port: number, localAddress = "127.0.0.1"): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: "127.0.0.1", localAddress }, () => resolve(s));
    s.once("error", reject);
  });
}

describe("connection deadlines and caps", () => {
  let app: FastifyInstance;
  let port: number;
  let url: string;
  before(async () => {
    app = await buildServer({
      config: {
        maxBodyBytes: 65536,
        requestTimeoutMs: 5000,
        shutdownTimeoutMs: 1000,
        tlsCertFile: undefined,
        tlsKeyFile: undefined,
        connectionLimits: LIMITS,
      },
      logger: createLogger("silent"),
      metrics: createRpcMetrics(),
      authenticator: {
        async authenticate(): Promise<AuthResult> {
          return { ok: false, failure: "unknown" };
        },
      },
      implementations: {},
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    port = (app.server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}`;
  });
  after(async () => app.close());

  test("a silent TCP connection is closed after the first-bytes timeout", async () => {
    const { ms } = await closesWithin(await connect(port), LIMITS.firstBytesTimeoutMs + SLACK_MS);
    assert.ok(ms >= LIMITS.firstBytesTimeoutMs - 50, `closed early, after ${ms} ms`);
  });

  test("a bare `PRI * HTTP/2` (a partial preface) is closed after the first-bytes timeout", async () => {
    const s = await connect(port);
    s.write("PRI * HTTP/2");
    await closesWithin(s, LIMITS.firstBytesTimeoutMs + SLACK_MS);
  });

  test("the whole preface with no SETTINGS after it is closed after the first-bytes timeout", async () => {
    const s = await connect(port);
    s.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    await closesWithin(s, LIMITS.firstBytesTimeoutMs + SLACK_MS);
  });

  test("HTTP/1.1 headers that never finish get 408 and a close after the headers timeout", async () => {
    const s = await connect(port);
    s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const { data } = await closesWithin(s, LIMITS.headersTimeoutMs + SLACK_MS);
    assert.match(data, /^HTTP\/1\.1 408 /);
  });

  test("an HTTP/1.1 body sent a byte at a time is cut off after the request timeout", async () => {
    const s = await connect(port);
    s.write(
      "POST /api/v1/search/vector HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    const drip = setInterval(() => s.writable && s.write(" "), 100);
    try {
      const { data } = await closesWithin(s, LIMITS.requestBodyTimeoutMs + SLACK_MS);
      assert.match(data, /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
    }
  });

  test("an idle HTTP/1.1 keep-alive connection is closed after the keep-alive timeout", async () => {
    const s = await connect(port);
    const closed = closesWithin(s, LIMITS.keepAliveTimeoutMs + SLACK_MS + 1_000);
    s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    const { data } = await closed;
    assert.match(data, /^HTTP\/1\.1 200 /, "the request itself was answered");
  });

  test("an idle HTTP/2 session after the preface and SETTINGS gets GOAWAY and closes", async () => {
    const session = http2.connect(url);
    session.on("error", () => undefined);
    const start = Date.now();
    const outcome = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve("open"), LIMITS.http2IdleTimeoutMs + SLACK_MS);
      session.once("close", () => {
        clearTimeout(timer);
        resolve("closed");
      });
    });
    session.destroy();
    assert.equal(outcome, "closed", `session still open after ${Date.now() - start} ms`);
  });

  test("an HTTP/2 request body that never ends is cancelled after the request timeout", async () => {
    const session = http2.connect(url);
    session.on("error", () => undefined);
    try {
      const req = session.request({
        ":method": "POST",
        ":path": "/threadsight.v1.SearchService/VectorSearch",
        "content-type": "application/grpc",
      });
      req.on("error", () => undefined);
      req.write(Buffer.from([0, 0, 0, 0, 100]));
      // Keep the session busy so the idle timeout is not what ends the stream.
      const ping = setInterval(() => !session.destroyed && session.ping(() => undefined), 100);
      const start = Date.now();
      const code = await new Promise<number | string>((resolve) => {
        const timer = setTimeout(() => resolve("open"), LIMITS.requestBodyTimeoutMs + SLACK_MS);
        req.once("close", () => {
          clearTimeout(timer);
          resolve(req.rstCode ?? -1);
        });
        req.resume();
      });
      clearInterval(ping);
      assert.notEqual(code, "open", `stream still open after ${Date.now() - start} ms`);
    } finally {
      session.destroy();
    }
  });

  test("HTTP/2 clients are told the concurrent-stream cap", async () => {
    const session = http2.connect(url);
    session.on("error", () => undefined);
    try {
      const settings = await new Promise<http2.Settings>((resolve) => session.once("remoteSettings", resolve));
      assert.equal(settings.maxConcurrentStreams, LIMITS.http2MaxConcurrentStreams);
    } finally {
      session.destroy();
    }
  });

  test("connections beyond the per-address cap are closed at once; another address is unaffected", async () => {
    const held = await Promise.all(Array.from({ length: LIMITS.maxConnectionsPerAddress }, () => connect(port)));
    try {
      const extra = await connect(port);
      const closed = closesWithin(extra, LIMITS.firstBytesTimeoutMs + SLACK_MS);
      extra.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      assert.equal((await closed).data, "", "the connection over the cap got no answer");

      const other = await connect(port, "127.0.0.2");
      const answered = closesWithin(other, SLACK_MS + 1_000);
      other.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      assert.match((await answered).data, /^HTTP\/1\.1 200 /);
    } finally {
      for (const s of held) s.destroy();
    }
  });
});

describe("connection deadlines over TLS", () => {
  let app: FastifyInstance;
  let port: number;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-tls-slow-"));
    const cert = path.join(dir, "cert.pem");
    const key = path.join(dir, "key.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
      ],
      { stdio: "ignore" },
    );
    app = await buildServer({
      config: {
        maxBodyBytes: 65536,
        requestTimeoutMs: 5000,
        shutdownTimeoutMs: 1000,
        tlsCertFile: cert,
        tlsKeyFile: key,
        connectionLimits: LIMITS,
      },
      logger: createLogger("silent"),
      metrics: createRpcMetrics(),
      authenticator: {
        async authenticate(): Promise<AuthResult> {
          return { ok: false, failure: "unknown" };
        },
      },
      implementations: {},
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("HTTP/1.1 over TLS: headers that never finish get 408 and a close", async () => {
    const s = tls.connect({ port, host: "127.0.0.1", rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] });
    await new Promise<void>((resolve, reject) => s.once("secureConnect", resolve).once("error", reject));
    s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    const { data } = await closesWithin(s, LIMITS.headersTimeoutMs + SLACK_MS);
    assert.match(data, /^HTTP\/1\.1 408 /);
  });

  test("HTTP/2 over TLS: an idle session is closed and the stream cap is advertised", async () => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    session.on("error", () => undefined);
    try {
      const settings = await new Promise<http2.Settings>((resolve) => session.once("remoteSettings", resolve));
      assert.equal(settings.maxConcurrentStreams, LIMITS.http2MaxConcurrentStreams);
      const outcome = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve("open"), LIMITS.http2IdleTimeoutMs + SLACK_MS);
        session.once("close", () => {
          clearTimeout(timer);
          resolve("closed");
        });
      });
      assert.equal(outcome, "closed");
    } finally {
      session.destroy();
    }
  });
});
