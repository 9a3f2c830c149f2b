/**
 * Deadlines and caps for every state a client connection can sit in, so that a few silent or
 * slow unauthenticated clients cannot hold sockets (and file descriptors) open indefinitely:
 * first bytes, HTTP/1.1 headers, the whole request (body included), idle keep-alive, the HTTP/2
 * handshake, idle HTTP/2 sessions, concurrent streams per session, and connections per address.
 */
import http2 from "node:http2";
import type { Socket } from "node:net";

/** The limits; every duration is in milliseconds. */
export interface ConnectionLimits {
  /** A new connection must send its first request bytes (the whole HTTP/2 preface and SETTINGS) within this. */
  firstBytesTimeoutMs: number;
  /** An HTTP/1.1 request's headers must be complete within this of its first byte. */
  headersTimeoutMs: number;
  /** A request must be received completely (headers and body) within this; HTTP/1.1 and HTTP/2 streams. */
  requestBodyTimeoutMs: number;
  /** An idle HTTP/1.1 keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** An HTTP/2 session with no frames either way for this long gets GOAWAY. */
  http2IdleTimeoutMs: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS advertised to HTTP/2 clients. */
  http2MaxConcurrentStreams: number;
  /** Open connections allowed from one remote address; more are closed at accept. */
  maxConnectionsPerAddress: number;
}

/** Defaults: generous for real clients on slow links, short enough that idling costs an attacker. */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  firstBytesTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  requestBodyTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  http2IdleTimeoutMs: 120_000,
  http2MaxConcurrentStreams: 100,
  maxConnectionsPerAddress: 256,
});

/**
 * Counts open connections per remote address. `admit` returns false (and the caller destroys the
 * socket) when the address is at its cap; an admitted socket is uncounted when it closes.
 */
export function perAddressGate(max: number): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  return (socket) => {
    const address = socket.remoteAddress ?? "";
    const n = open.get(address) ?? 0;
    if (n >= max) return false;
    open.set(address, n + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
    return true;
  };
}

/** A stream whose client has sent END_STREAM (or that is gone) needs no body deadline. */
function remoteDone(stream: http2.ServerHttp2Stream): boolean {
  if (stream.destroyed || stream.closed) return true;
  const state = stream.state?.state;
  return (
    state === http2.constants.NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE ||
    state === http2.constants.NGHTTP2_STREAM_STATE_CLOSED
  );
}

/**
 * Applies the HTTP/2 deadlines to a server's sessions and streams. `handshakeDeadline` gives the
 * time by which a new session must have received the client's SETTINGS (the rest of the
 * connection's first-bytes budget); a session that misses it, or idles past
 * `http2IdleTimeoutMs`, is closed.
 */
export function guardHttp2(
  server: http2.Http2Server | http2.Http2SecureServer,
  limits: Readonly<ConnectionLimits>,
  handshakeDeadline: () => number,
): void {
  server.on("session", (session: http2.ServerHttp2Session) => {
    const handshake = setTimeout(() => session.destroy(), Math.max(0, handshakeDeadline() - Date.now()));
    handshake.unref();
    session.once("remoteSettings", () => clearTimeout(handshake));
    session.once("close", () => clearTimeout(handshake));
    // GOAWAY lets streams still open (a health Watch) finish; the session then ends by itself.
    session.setTimeout(limits.http2IdleTimeoutMs, () => {
      if (session.closed || session.destroyed) return;
      session.close();
    });
  });
  server.on("stream", (stream: http2.ServerHttp2Stream) => {
    const timer = setTimeout(() => {
      if (!remoteDone(stream)) stream.close(http2.constants.NGHTTP2_CANCEL);
    }, limits.requestBodyTimeoutMs);
    timer.unref();
    stream.once("close", () => clearTimeout(timer));
  });
}

/** How often Node's HTTP/1.1 server checks header and request deadlines: a fraction of the shortest. */
export function deadlineCheckIntervalMs(limits: Readonly<ConnectionLimits>): number {
  return Math.max(50, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestBodyTimeoutMs) / 4)));
}
