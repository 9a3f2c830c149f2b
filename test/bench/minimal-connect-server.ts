/**
 * The least a gRPC answer can cost on this stack, for transport-round-trip.ts and
 * http2-server-cost.ts to compare the service with. One of three servers, chosen by the first
 * argument, answers grpc.health.v1.Health/Check over cleartext HTTP/2:
 *
 * - `fastify` (the default): Fastify and @connectrpc/connect-fastify serving the same Health
 *   service as the service does, with none of the service's hooks, interceptors, one-port routing
 *   or logging;
 * - `connect-node`: @connectrpc/connect-node's adapter on a bare node:http2 server, the same
 *   service (what Fastify adds is the difference with `fastify`);
 * - `http2`: node:http2 alone writing the answer's frames by hand (response headers, one
 *   message holding status SERVING, grpc-status trailers) whatever the request: no protocol at
 *   all, just what HTTP/2 in Node costs per call.
 *
 * Prints its URL and runs until killed.
 * Run: node --import tsx test/bench/minimal-connect-server.ts [fastify|connect-node|http2]
 */
import http2 from "node:http2";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import Fastify from "fastify";
import { createHealthService, Health, HealthMonitor } from "../../src/grpc/health.js";

/** A gRPC message frame: uncompressed, length 2, HealthCheckResponse{status: SERVING (1)}. */
const SERVING = Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]);

async function listen(server: http2.Http2Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

const stack = process.argv[2] ?? "fastify";
let port: number;
if (stack === "http2") {
  port = await listen(
    http2.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/grpc" });
        res.addTrailers({ "grpc-status": "0" });
        res.end(SERVING);
      });
    }),
  );
} else if (stack === "connect-node") {
  port = await listen(
    http2.createServer(
      connectNodeAdapter({ routes: (router) => router.service(Health, createHealthService(new HealthMonitor())) }),
    ),
  );
} else if (stack === "fastify") {
  const app = Fastify({ http2: true });
  await app.register(fastifyConnectPlugin, {
    routes: (router) => router.service(Health, createHealthService(new HealthMonitor())),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  port = address.port;
} else {
  throw new Error(`unknown stack "${stack}": fastify, connect-node or http2`);
}
process.stdout.write(`http://127.0.0.1:${port}\n`);
