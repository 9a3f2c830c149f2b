/**
 * Requests answered before their body was read. A message over MAX_BODY_BYTES (or one a decoder
 * refuses early) gets its error at once, without reading the rest: the body may be megabytes,
 * or a declared 2 GiB. But a client is still sending that rest, and nobody reads it:
 *
 * - HTTP/1.1 (REST, Connect, gRPC-Web): the connection cannot carry another request until the
 *   body ends, so the answer says `Connection: close` and the server ends its side. It then
 *   keeps reading (and dropping) what the client still sends for up to LINGER_MS before it
 *   destroys the socket: closing a socket with unread input makes the kernel send a reset,
 *   which can discard the answer before the client has read it.
 * - HTTP/2 (gRPC, Connect): the stream is half-open with the client blocked on flow control,
 *   which also holds its session open at shutdown. RFC 9113 section 8.1 gives the way out: after
 *   a complete response the server resets the stream with NO_ERROR, which tells the client to
 *   stop sending without failing the call it has already been answered.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import http2 from "node:http2";
import type { Socket } from "node:net";

/** How long a closing HTTP/1.1 connection keeps draining a refused body before it is destroyed, ms. */
export const LINGER_MS = 1_000;

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** Arranges for `res` to end the unread rest of `req`'s body cleanly; call once per request. */
export function endUnreadBody(req: Request, res: Response): void {
  if ("stream" in req) {
    endHttp2Stream(req, res as Http2ServerResponse);
  } else {
    closeHttp1Connection(req, res as ServerResponse);
  }
}

function endHttp2Stream(req: Http2ServerRequest, res: Http2ServerResponse): void {
  const stream = req.stream;
  // The compatibility layer sends the (possibly empty) trailers on wantTrailers, its last frame;
  // the reset is submitted after them, so the client has the whole answer first.
  stream.once("wantTrailers", () => {
    setImmediate(() => {
      if (req.complete || stream.closed || stream.destroyed) return;
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
      // A stream closed with NO_ERROR waits for its readable side to end before it is
      // destroyed, and the handler stopped reading it: without this it never emits "close".
      setImmediate(() => stream.destroy());
    });
  });
}

function closeHttp1Connection(req: IncomingMessage, res: ServerResponse): void {
  // Taken now: by the time an early answer is written the request may have let go of it.
  const socket = req.socket as Socket | null;
  const writeHead = res.writeHead;
  // Decided when the status line goes out, the last moment the header can still be added.
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    if (!req.complete && !res.headersSent && socket) {
      res.setHeader("connection", "close");
      lingerOnClose(socket);
    }
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

/** Replaces the socket's destroySoon (what Node calls after a `Connection: close` answer). */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    this.end();
    // Read the rest raw and drop it. The request stream may already be destroyed and the HTTP
    // parser paused on it, so the parser is taken off the socket (adding a data listener also
    // detaches it from the raw handle) and the socket is read directly.
    const drop = (): void => {};
    this.on("data", drop);
    for (const listener of this.listeners("data"))
      if (listener !== drop) this.removeListener("data", listener as () => void);
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("end", () => this.destroy());
    this.once("close", () => clearTimeout(timer));
    return this;
  } as Socket["destroySoon"];
}
