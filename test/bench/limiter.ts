/**
 * Micro-benchmark: the latency the limits interceptor adds to one unary call, per store, against
 * the same call with limits off. Each call goes through Connect's in-memory router transport to a
 * trivial SearchService handler; usage recording is a no-op here so only the limiter is measured.
 *
 * Run: node --import tsx test/bench/limiter.ts [calls-per-run] [runs]
 * Redis: REDIS_URL, or a redis-server started by the test harness. Prints medians of per-run means.
 */
import { rmSync } from "node:fs";
import os from "node:os";
import { create } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import {
  SearchService,
  SemanticSearchResponseSchema,
  VectorSearchResponseSchema,
} from "../../gen/threadsight/v1/search_pb.js";
import { CALLER } from "../../src/auth/context.js";
import { LimitEnforcer } from "../../src/limits/enforcer.js";
import { createLimitsInterceptor } from "../../src/limits/limits-interceptor.js";
import { memoryCounterStore } from "../../src/limits/local-stores.js";
import type { RedisServer } from "../harness/redis.js";
import { startRedis } from "../harness/redis.js";
import { callerOn, limitsFor, litePlan, tempDir } from "../limits/fixtures.js";

const CALLS = Number(process.argv[2] ?? 2000);
const RUNS = Number(process.argv[3] ?? 7);
const catalog = litePlan(1_000_000_000, 1_000_000_000);
const caller = callerOn("lite");
const setCaller: Interceptor = (next) => async (req) => {
  req.contextValues.set(CALLER, caller);
  return next(req);
};

function clientWith(interceptors: Interceptor[]) {
  const transport = createRouterTransport(
    (router) =>
      router.service(SearchService, {
        semanticSearch: async (req) => create(SemanticSearchResponseSchema, { query: req.query }),
        vectorSearch: async (req) => create(VectorSearchResponseSchema, { query: req.query }),
      }),
    { router: { interceptors: [setCaller, ...interceptors] } },
  );
  return createClient(SearchService, transport);
}

function limitsInterceptor(enforcer: LimitEnforcer): Interceptor {
  return createLimitsInterceptor({ enforcer, usage: { recordUsage: async () => {} } });
}

type Client = ReturnType<typeof clientWith>;

async function runOnce(client: Client): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await client.semanticSearch({ query: "q" });
  return Number(process.hrtime.bigint() - t0) / 1000 / CALLS;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Rounds interleave the configurations (off, A, off, B, ...) so that load from other processes
 * hits them alike; the added latency of a store is the median over rounds of (store - off) in
 * the same round.
 */
async function compare(
  configs: [string, Interceptor[]][],
): Promise<{ name: string; perCall: number; added: number }[]> {
  const clients = configs.map(([name, ics]) => [name, clientWith(ics)] as const);
  const off = clientWith([]);
  for (const [, c] of clients) for (let i = 0; i < 300; i++) await c.semanticSearch({ query: "warm" });
  for (let i = 0; i < 300; i++) await off.semanticSearch({ query: "warm" });
  const perCall = new Map<string, number[]>(clients.map(([n]) => [n, []]));
  const added = new Map<string, number[]>(clients.map(([n]) => [n, []]));
  const offTimes: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    for (const [name, c] of clients) {
      const base = await runOnce(off);
      const t = await runOnce(c);
      offTimes.push(base);
      perCall.get(name)!.push(t);
      added.get(name)!.push(t - base);
    }
  }
  return [
    { name: "limits off", perCall: median(offTimes), added: 0 },
    ...clients.map(([name]) => ({ name, perCall: median(perCall.get(name)!), added: median(added.get(name)!) })),
  ];
}

async function main(): Promise<void> {
  const dir = tempDir();
  let redis: RedisServer | undefined;
  let url = process.env.REDIS_URL;
  if (url === undefined) {
    redis = await startRedis();
    url = redis.url;
  }
  const memory = new LimitEnforcer({
    catalog,
    rateStore: memoryCounterStore("r"),
    quotaStore: memoryCounterStore("q"),
  });
  const embedded = await limitsFor(catalog, { dataDir: dir });
  const viaRedis = await limitsFor(catalog, { dataDir: dir, redisUrl: url });
  try {
    const rows = await compare([
      ["memory (rate + quota in memory)", [limitsInterceptor(memory)]],
      ["embedded default (memory + SQLite)", [limitsInterceptor(embedded.enforcer)]],
      ["Redis (loopback)", [limitsInterceptor(viaRedis.enforcer)]],
    ]);
    const cpu = os.cpus()[0]?.model ?? "unknown cpu";
    console.log(`limiter overhead: ${CALLS} sequential calls per run, ${RUNS} interleaved rounds, medians`);
    console.log(
      `machine: ${cpu}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}, node ${process.version}, ${os.platform()} ${os.release()}`,
    );
    for (const r of rows) {
      const added =
        r.name === "limits off" ? "" : `  added ${r.added.toFixed(1)} us (${(r.added / 1000).toFixed(3)} ms)`;
      console.log(`  ${r.name.padEnd(36)} ${r.perCall.toFixed(1).padStart(8)} us/call${added}`);
    }
  } finally {
    await embedded.close();
    await viaRedis.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
