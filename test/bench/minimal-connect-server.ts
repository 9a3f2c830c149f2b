/**
 * The least a Connect gRPC answer can cost on this stack, for transport-round-trip.ts to compare
 * the service with: Fastify (HTTP/2, cleartext) and @connectrpc/connect-fastify serving the same
 * grpc.health.v1 Health service as the service does, with none of the service's hooks,
 * interceptors, one-port routing or logging. Prints its URL and runs until killed.
 *
 * Run: node --import tsx test/bench/minimal-connect-server.ts
 */
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import Fastify from "fastify";
import { createHealthService, Health, HealthMonitor } from "../../src/grpc/health.js";

const app = Fastify({ http2: true });
await app.register(fastifyConnectPlugin, { routes: (router) => router.service(Health, createHealthService(new HealthMonitor())) });
await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
if (address === null || typeof address === "string") throw new Error("no TCP address");
process.stdout.write(`http://127.0.0.1:${address.port}\n`);
