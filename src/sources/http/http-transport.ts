/**
 * The wire under the polite client: one HTTP(S) exchange on Node's own `http`/`https` with
 * keep-alive agents, the body decompressed (gzip, deflate, br) and decoded as UTF-8. A poll of
 * the Hacker News API is one small request per item, so the client's cost per request is what
 * a poll spends beside embedding, and the WHATWG `fetch` (web streams, a Response object per
 * answer) costs markedly more CPU per request than this path (docs/decisions/0011). Politeness (budget, spacing, retries)
 * stays in polite-client.ts; this file only moves bytes.
 */
import http from "node:http";
import https from "node:https";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

/** One request. */
export interface WireRequest {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** Aborts the exchange, headers or body (the caller's signal with its timeout). */
  signal: AbortSignal;
  /** GETs follow redirects as `fetch` does; a POST that is redirected fails. */
  followRedirects: boolean;
}

/** One answer; `text` is empty for a 304. */
export interface WireAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Redirects followed before giving up, as `fetch` does. */
const MAX_REDIRECTS = 20;

// Sockets are reused across the requests of a poll and across polls; idle ones do not keep
// the process alive (Node unrefs a free keep-alive socket).
const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

function decoderFor(encoding: string | undefined): NodeJS.ReadWriteStream | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

function headersOf(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}

function exchange(url: URL, request: WireRequest): Promise<http.IncomingMessage> {
  const agent = url.protocol === "https:" ? agents["https:"] : url.protocol === "http:" ? agents["http:"] : undefined;
  if (agent === undefined) return Promise.reject(new TypeError(`unsupported URL scheme ${url.protocol}`));
  const send = url.protocol === "https:" ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: request.method,
      headers: { "accept-encoding": "gzip, deflate, br", ...request.headers },
      agent,
      signal: request.signal,
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end(request.body);
  });
}

/** Sends `request` to `url`; rejects on a network failure, an abort or a refused redirect. */
export async function send(url: string, request: WireRequest): Promise<WireAnswer> {
  let target = new URL(url);
  for (let hops = 0; ; hops += 1) {
    const res = await exchange(target, request);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && status !== 304 && location !== undefined) {
      res.resume();
      if (!request.followRedirects) throw new TypeError(`redirected (HTTP ${status}) where no redirect is allowed`);
      if (hops >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
      target = new URL(location, target);
      continue;
    }
    const headers = headersOf(res);
    if (status === 304) {
      res.resume();
      return { status, headers, text: "" };
    }
    const chunks: Buffer[] = [];
    const collect = async (source: AsyncIterable<string | Buffer>): Promise<void> => {
      for await (const chunk of source) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    };
    const decoder = decoderFor(res.headers["content-encoding"]);
    // pipeline rejects on an abort or a connection closed before the body's end.
    if (decoder === undefined) await pipeline(res, collect, { signal: request.signal });
    else await pipeline(res, decoder, collect, { signal: request.signal });
    return { status, headers, text: new TextDecoder("utf-8").decode(Buffer.concat(chunks)) };
  }
}
