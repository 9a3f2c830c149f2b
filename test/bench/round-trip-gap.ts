/**
 * How a pause before a call changes the bare gRPC round trip: grpc-js Health/Check to a minimal
 * Fastify + Connect server in its own process (minimal-connect-server.ts), each call preceded in
 * turn by no pause, a setImmediate, a 1, 5 or 20 ms sleep, or 5 ms of busy work in this process,
 * interleaved. The floor part (floor.ts) times its bare round trip right after engine work, one
 * call at a time with pauses between, which is the slow end of this range; a client sending
 * calls back to back pays the fast end. Medians of 300 calls per kind (the first 20 dropped).
 * Run: node --import tsx test/bench/round-trip-gap.ts [calls]
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { healthCheckCall } from "./search-clients.js";
import { median } from "./stats.js";

const calls = Number(process.argv[2] ?? 300);
const child = spawn(
  process.execPath,
  ["--import", "tsx", path.join(import.meta.dirname, "minimal-connect-server.ts"), "fastify"],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const url = await new Promise<string>((resolve) =>
  child.stdout!.setEncoding("utf8").once("data", (c: string) => resolve(c.trim())),
);
const health = healthCheckCall(new URL(url).host);
const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const pauses: [string, () => unknown][] = [
  ["none", () => undefined],
  ["setImmediate", () => new Promise<void>((r) => setImmediate(r))],
  ["sleep 1 ms", () => sleep(1)],
  ["sleep 5 ms", () => sleep(5)],
  ["sleep 20 ms", () => sleep(20)],
  ["busy 5 ms (this process)", () => busy(5)],
];
const times = new Map<string, number[]>(pauses.map(([k]) => [k, []]));
try {
  for (let i = 0; i < calls; i++) {
    for (const [kind, pause] of pauses) {
      await pause();
      const t = performance.now();
      await health.call();
      times.get(kind)!.push(performance.now() - t);
    }
  }
  for (const [kind, v] of times) console.log(`${kind.padEnd(26)} ${median(v.slice(20)).toFixed(3)} ms`);
} finally {
  health.close();
  child.kill();
}
