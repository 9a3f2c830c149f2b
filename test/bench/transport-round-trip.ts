/**
 * The bare round trip to the service, layer by layer, on one HTTP/2 connection each, interleaved
 * (the service in its own process over the kept embedded index, as the floor part runs it):
 * GET /healthz (Fastify alone), gRPC Health/Check sent as raw HTTP/2 frames (Fastify + Connect's
 * gRPC handler), and the same call through grpc-js (plus the client library). Medians of 350
 * calls each. Run: node --import tsx test/bench/transport-round-trip.ts
 */
import http2 from "node:http2";
import path from "node:path";
import { BENCH_DIR } from "./results-store.js";
import { spawnService } from "./service-process.js";
import { healthCheckCall } from "./search-clients.js";
import { median } from "./stats.js";

const dataDir = path.join(BENCH_DIR, "lancedb-full");
const svc = await spawnService(dataDir, { THREADSIGHT_DATA_DIR: dataDir });
const h = healthCheckCall(svc.address);
const s = http2.connect(svc.url);
// One uncompressed gRPC message frame of length 0 (an empty HealthCheckRequest).
const frame = Buffer.from([0, 0, 0, 0, 0]);
const raw = (): Promise<void> => new Promise((res, rej) => {
  const req = s.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/grpc", te: "trailers" });
  req.on("data", () => {}); req.on("end", () => res()); req.on("error", rej); req.end(frame);
});
const get = (p: string): Promise<void> => new Promise((res, rej) => {
  const req = s.request({ ":method": "GET", ":path": p });
  req.on("data", () => {}); req.on("end", () => res()); req.on("error", rej); req.end();
});
const t: Record<string, number[]> = { grpcjs: [], rawh2grpc: [], healthz: [] };
for (let i = 0; i < 400; i++) {
  for (const [k, f] of [["grpcjs", () => h.call()], ["rawh2grpc", raw], ["healthz", () => get("/healthz")]] as const) {
    const t0 = performance.now(); await f(); if (i >= 50) t[k]!.push(performance.now() - t0);
  }
}
for (const [k, v] of Object.entries(t)) console.log(k, median(v).toFixed(3), "ms");
h.close(); s.close(); await svc.stop();
