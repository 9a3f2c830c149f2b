/**
 * One port for every protocol. Node's cleartext HTTP/2 server cannot fall back to HTTP/1.1
 * (there is no ALPN without TLS), so we put an HTTP/1.1 server behind the HTTP/2 one and
 * route each new connection by its first bytes: the HTTP/2 client preface ("PRI * HTTP/2.0")
 * goes to HTTP/2 (gRPC over h2c, Connect, gRPC-Web), anything else to HTTP/1.1 (REST, curl,
 * browsers). With TLS, ALPN negotiates the same choice and Node's `allowHTTP1` does the work.
 */
import http from "node:http";
import http2 from "node:http2";
import type { Socket } from "node:net";
import type { ConnectionLimits } from "./connection-limits.js";
import { DEFAULT_CONNECTION_LIMITS, deadlineCheckIntervalMs, guardHttp2, perAddressGate } from "./connection-limits.js";

/** Handler type Fastify passes to a server factory. */
type Handler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** How long a closing HTTP/2 session may keep open streams before it is destroyed, ms. */
export const SESSION_DESTROY_GRACE_MS = 1_000;

/** A cleartext HTTP/2 server that also answers HTTP/1.1 on the same listening socket. */
export interface OnePortServer extends http2.Http2Server {
  /** The HTTP/1.1 server that receives non-HTTP/2 connections (for timeouts). */
  readonly http1: http.Server;
  /**
   * Destroys every HTTP/1.1 connection. Node tracks connections only for a server that listens
   * itself, so http1.closeAllConnections() would see none of ours; we keep our own set.
   */
  destroyHttp1Connections(): void;
  /**
   * Fastify calls this on close (after preClose has drained the calls in flight); without it
   * open HTTP/2 sessions keep close() waiting. Sessions get GOAWAY at once; one still open
   * SESSION_DESTROY_GRACE_MS later (a stream its client never finished) is destroyed.
   */
  closeHttp2Sessions(): void;
}

/**
 * Creates the dual-protocol server for Fastify's `serverFactory`. The returned object is a real
 * Http2Server, so Fastify's listen/close/address work unchanged.
 */
export function createOnePortServer(
  handler: Handler,
  limits: Readonly<ConnectionLimits> = DEFAULT_CONNECTION_LIMITS,
): OnePortServer {
  const h2 = http2.createServer(
    { settings: { maxConcurrentStreams: limits.http2MaxConcurrentStreams } },
    handler as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  const http1 = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestBodyTimeoutMs,
      connectionsCheckingInterval: deadlineCheckIntervalMs(limits),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
    },
    handler as http.RequestListener,
  );
  // Node enforces headersTimeout and requestTimeout (408, then close) only once a server has
  // emitted "listening"; ours never listens itself, so we start that tracking by hand.
  http1.emit("listening");
  const admit = perAddressGate(limits.maxConnectionsPerAddress);
  // Set while a routed socket is handed to HTTP/2, which creates its session synchronously.
  let handshakeDeadline = 0;
  guardHttp2(h2, limits, () => handshakeDeadline);

  const http1Sockets = new Set<Socket>();
  // Connections accepted but not yet routed (no byte seen): the listening server counts them,
  // so one that idles would keep close() waiting as surely as an open session.
  const unrouted = new Set<Socket>();
  let http1Closed = false;
  let closing = false;
  const h2ConnectionListeners = h2.listeners("connection") as ((socket: Socket) => void)[];
  h2.removeAllListeners("connection");
  h2.on("connection", (socket: Socket) => {
    if (closing || !admit(socket)) {
      socket.destroy();
      return;
    }
    unrouted.add(socket);
    // A hard deadline, not an idle timer: dripping one byte of the preface at a time must not
    // keep a connection unrouted for longer.
    const acceptedAt = Date.now();
    const firstBytes = setTimeout(() => socket.destroy(), limits.firstBytesTimeoutMs);
    firstBytes.unref();
    socket.once("close", () => {
      unrouted.delete(socket);
      clearTimeout(firstBytes);
    });
    const route = (chunk: Buffer): void => {
      // A prefix of the preface is not enough to decide unless it already disagrees.
      const n = Math.min(chunk.length, PREFACE.length);
      const isH2 = chunk.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && chunk.length < PREFACE.length) {
        socket.once("data", (more: Buffer) => route(Buffer.concat([chunk, more])));
        return;
      }
      unrouted.delete(socket);
      clearTimeout(firstBytes);
      socket.pause();
      socket.unshift(chunk);
      if (isH2) {
        // A session that starts after shutdown began is closed on its "session" event below.
        // Its SETTINGS must still arrive within what is left of the first-bytes budget.
        handshakeDeadline = acceptedAt + limits.firstBytesTimeoutMs;
        for (const listener of h2ConnectionListeners) listener.call(h2, socket);
      } else if (http1Closed) {
        socket.destroy();
      } else {
        http1Sockets.add(socket);
        socket.once("close", () => http1Sockets.delete(socket));
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.once("data", route);
    socket.once("error", () => socket.destroy());
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  const closeSession = (session: http2.ServerHttp2Session): void => {
    session.close();
    const timer = setTimeout(() => session.destroy(), SESSION_DESTROY_GRACE_MS);
    timer.unref();
    session.once("close", () => clearTimeout(timer));
  };
  h2.on("session", (session: http2.ServerHttp2Session) => {
    if (closing) {
      closeSession(session);
      return;
    }
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  return Object.assign(h2, {
    http1,
    destroyHttp1Connections() {
      http1Closed = true;
      for (const socket of http1Sockets) socket.destroy();
    },
    closeHttp2Sessions() {
      closing = true;
      for (const socket of unrouted) socket.destroy();
      for (const session of sessions) closeSession(session);
    },
  }) as OnePortServer;
}
