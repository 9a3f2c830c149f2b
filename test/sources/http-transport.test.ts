/**
 * The wire under the polite client (src/sources/http/http-transport.ts) against a local server:
 * compressed answers are decoded, GET redirects are followed and a redirected POST is refused,
 * response headers keep every value, and an abort during a slow body rejects the exchange.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import { send } from "../../src/sources/http/http-transport.js";

const BODY = JSON.stringify({ text: "naïve café ✓", n: Array.from({ length: 200 }, (_, i) => i) });

describe("the live-source HTTP transport", () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://local");
      if (url.pathname === "/gzip") {
        res.writeHead(200, { "content-encoding": "gzip", "set-cookie": ["a=1", "b=2"] });
        res.end(zlib.gzipSync(BODY));
      } else if (url.pathname === "/br") {
        res.writeHead(200, { "content-encoding": "br" });
        res.end(zlib.brotliCompressSync(BODY));
      } else if (url.pathname === "/plain") {
        res.writeHead(200, { "x-seen-encoding": req.headers["accept-encoding"] ?? "" });
        res.end(`\uFEFF${BODY}`);
      } else if (url.pathname === "/hop") {
        res.writeHead(302, { location: "/plain" });
        res.end();
      } else if (url.pathname === "/slow") {
        res.writeHead(200);
        res.write('{"partial":');
        // Never finished: the client's abort must end the exchange.
      } else {
        res.writeHead(404);
        res.end("{}");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const get = (signal = AbortSignal.timeout(5000)) => ({
    method: "GET" as const,
    headers: { "user-agent": "threadsight-test" },
    signal,
    followRedirects: true,
  });

  it("decodes gzip and br bodies as UTF-8 and keeps repeated headers", async () => {
    const gz = await send(`${base}/gzip`, get());
    assert.equal(gz.status, 200);
    assert.equal(gz.text, BODY);
    assert.deepEqual(gz.headers.getSetCookie(), ["a=1", "b=2"]);
    assert.equal((await send(`${base}/br`, get())).text, BODY);
  });

  it("asks for compression, strips a byte-order mark, and follows a GET redirect", async () => {
    const answer = await send(`${base}/hop`, get());
    assert.equal(answer.status, 200);
    assert.equal(answer.text, BODY);
    assert.match(answer.headers.get("x-seen-encoding") ?? "", /gzip/);
  });

  it("refuses a redirected POST", async () => {
    await assert.rejects(
      send(`${base}/hop`, { ...get(), method: "POST", body: "a=1", followRedirects: false }),
      /redirected \(HTTP 302\)/,
    );
  });

  it("passes a 404 through as an answer, and rejects when aborted mid-body", async () => {
    assert.equal((await send(`${base}/missing`, get())).status, 404);
    const t0 = Date.now();
    await assert.rejects(send(`${base}/slow`, get(AbortSignal.timeout(300))));
    assert.ok(Date.now() - t0 < 4000, "the abort ended the exchange");
  });
});
