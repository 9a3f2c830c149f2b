/**
 * The bare round trip to the service, layer by layer, on one HTTP/2 connection each, interleaved
 * (the service in its own process over the kept embedded index, as the floor part runs it):
 * GET /healthz (Fastify alone), gRPC Health/Check sent as raw HTTP/2 frames (Fastify + Connect's
 * gRPC handler), and the same call through grpc-js (plus the client library). Then the raw-frame
 * Health/Check again, interleaved between the service and a minimal Fastify + Connect server in
 * its own process (minimal-connect-server.ts: no hooks, interceptors or one-port routing): what
 * the service's own layers add to the round trip every call pays. Medians of 350 and 2,800 calls.
 * Run: node --import tsx test/bench/transport-round-trip.ts
 */
import { spawn } from "node:child_process";
import http2 from "node:http2";
import path from "node:path";
import { BENCH_DIR } from "./results-store.js";
import { healthCheckCall } from "./search-clients.js";
import { spawnService } from "./service-process.js";
import { median } from "./stats.js";

const dataDir = path.join(BENCH_DIR, "lancedb-full");
const svc = await spawnService(dataDir, { THREADSIGHT_DATA_DIR: dataDir });
const h = healthCheckCall(svc.address);
const s = http2.connect(svc.url);
// One uncompressed gRPC message frame of length 0 (an empty HealthCheckRequest).
const frame = Buffer.from([0, 0, 0, 0, 0]);
const raw = (session = s): Promise<void> =>
  new Promise((res, rej) => {
    const req = session.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/grpc",
      te: "trailers",
    });
    req.on("data", () => {});
    req.on("end", () => res());
    req.on("error", rej);
    req.end(frame);
  });
const get = (p: string): Promise<void> =>
  new Promise((res, rej) => {
    const req = s.request({ ":method": "GET", ":path": p });
    req.on("data", () => {});
    req.on("end", () => res());
    req.on("error", rej);
    req.end();
  });
const t: Record<string, number[]> = { grpcjs: [], rawh2grpc: [], healthz: [] };
for (let i = 0; i < 400; i++) {
  for (const [k, f] of [
    ["grpcjs", () => h.call()],
    ["rawh2grpc", raw],
    ["healthz", () => get("/healthz")],
  ] as const) {
    const t0 = performance.now();
    await f();
    if (i >= 50) t[k]!.push(performance.now() - t0);
  }
}
for (const [k, v] of Object.entries(t)) console.log(k, median(v).toFixed(3), "ms");

const minimal = spawn(
  process.execPath,
  ["--import", "tsx", path.join(import.meta.dirname, "minimal-connect-server.ts")],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const minimalUrl = await new Promise<string>((res) =>
  minimal.stdout.setEncoding("utf8").once("data", (c: string) => res(c.trim())),
);
const m = http2.connect(minimalUrl);
const pair: Record<string, number[]> = {
  "service raw-h2 Health/Check": [],
  "minimal Fastify + Connect raw-h2 Health/Check": [],
};
for (let i = 0; i < 3000; i++) {
  for (const [k, session] of [
    ["service raw-h2 Health/Check", s],
    ["minimal Fastify + Connect raw-h2 Health/Check", m],
  ] as const) {
    const t0 = performance.now();
    await raw(session);
    if (i >= 200) pair[k]!.push(performance.now() - t0);
  }
}
for (const [k, v] of Object.entries(pair)) console.log(k, median(v).toFixed(3), "ms");
m.close();
minimal.kill();
h.close();
s.close();
await svc.stop();
