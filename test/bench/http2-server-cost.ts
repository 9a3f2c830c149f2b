/**
 * What one unary gRPC call costs the server process, stack by stack: node:http2 alone (frames
 * written by hand), Connect-node's adapter on node:http2, and Fastify + Connect (as the service
 * serves it), each a minimal server in its own process (minimal-connect-server.ts) answering
 * Health/Check. One client sends the same raw HTTP/2 request to each in turn (interleaved call by
 * call, so load that comes and goes hits all alike), then a timed run per server reads the
 * server's CPU from /proc: the round trip's median and the server's CPU per call. Where the
 * distance between the service and the engine floor goes (docs/BENCHMARKS.md).
 *
 * Run: node --import tsx test/bench/http2-server-cost.ts [calls]
 */
import { type ChildProcess, spawn } from "node:child_process";
import http2 from "node:http2";
import path from "node:path";
import { procCpuMs } from "./proc-cpu.js";
import { median } from "./stats.js";

const calls = Number(process.argv[2] ?? 3000);
const stacks = ["http2", "connect-node", "fastify"] as const;
// An empty HealthCheckRequest as one uncompressed gRPC message frame.
const frame = Buffer.from([0, 0, 0, 0, 0]);

const servers: { stack: string; child: ChildProcess; session: http2.ClientHttp2Session }[] = [];
for (const stack of stacks) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "minimal-connect-server.ts"), stack],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve) =>
    child.stdout!.setEncoding("utf8").once("data", (c: string) => resolve(c.trim())),
  );
  servers.push({ stack, child, session: http2.connect(url) });
}
const call = (session: http2.ClientHttp2Session): Promise<void> =>
  new Promise((resolve, reject) => {
    const req = session.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/grpc",
      te: "trailers",
    });
    req.on("data", () => {});
    req.on("end", resolve);
    req.on("error", reject);
    req.end(frame);
  });

const latency = new Map<string, number[]>(stacks.map((s) => [s, []]));
const warmup = Math.min(500, calls / 5);
for (let i = 0; i < calls + warmup; i++) {
  for (const s of servers) {
    const t0 = performance.now();
    await call(s.session);
    if (i >= warmup) latency.get(s.stack)!.push(performance.now() - t0);
  }
}
console.log("| server | round trip ms (median) | server CPU ms per call |");
console.log("| --- | --- | --- |");
for (const s of servers) {
  const pid = s.child.pid!;
  const cpu0 = procCpuMs(pid);
  for (let i = 0; i < calls; i++) await call(s.session);
  const cpu = (procCpuMs(pid) - cpu0) / calls;
  console.log(`| ${s.stack} | ${median(latency.get(s.stack)!).toFixed(3)} | ${cpu.toFixed(3)} |`);
}
for (const s of servers) {
  s.session.close();
  s.child.kill();
}
