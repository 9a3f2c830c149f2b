/**
 * Two real server processes (buildServer, one port each) sharing one Redis and one accounts
 * store: 200 concurrent calls on one key, spread over both servers and over REST, Connect, gRPC
 * and gRPC-Web, admit exactly the quota; the same for a per-minute limit; and a mix of the four
 * protocols is counted once per call.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Client } from "@connectrpc/connect";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { UsageService } from "../../gen/threadsight/v1/usage_pb.js";
import type { KeyService } from "../../src/accounts/key-service.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import type { RedisServer } from "../harness/redis.js";
import { redisSkipReason, startRedis } from "../harness/redis.js";
import { tempDir } from "./fixtures.js";

interface Server {
  child: ChildProcess;
  baseUrl: string;
  search: Record<"connect" | "grpc" | "grpcWeb", Client<typeof SearchService>>;
  usage: Client<typeof UsageService>;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/limits/server-child.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    child,
    baseUrl,
    search: {
      connect: createClient(SearchService, createConnectTransport({ baseUrl, httpVersion: "1.1" })),
      grpc: createClient(SearchService, createGrpcTransport({ baseUrl })),
      grpcWeb: createClient(SearchService, createGrpcWebTransport({ baseUrl, httpVersion: "2" })),
    },
    usage: createClient(UsageService, createConnectTransport({ baseUrl, httpVersion: "1.1" })),
  };
}

type Protocol = "rest" | "connect" | "grpc" | "grpcWeb";
const PROTOCOLS: Protocol[] = ["rest", "connect", "grpc", "grpcWeb"];

/** One SemanticSearch call; resolves to "ok" or the refusal's reason header-derived kind. */
async function call(server: Server, protocol: Protocol, key: string): Promise<"ok" | "429" | string> {
  const headers = { authorization: `Bearer ${key}` };
  if (protocol === "rest") {
    const res = await fetch(`${server.baseUrl}/api/v1/search/semantic`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ query: "pricing" }),
    });
    const body = await res.text();
    if (res.status === 429) assert.ok(Number(res.headers.get("retry-after")) >= 1, "REST 429 carries Retry-After");
    if (res.status === 200)
      assert.ok(res.headers.get("x-quota-remaining") !== null, "REST 200 carries the quota headers");
    if (res.status === 200) return "ok";
    return res.status === 429 ? "429" : `rest:${res.status}:${body}`;
  }
  try {
    await server.search[protocol].semanticSearch({ query: "pricing" }, { headers });
    return "ok";
  } catch (e) {
    const err = ConnectError.from(e);
    if (err.code === Code.ResourceExhausted) {
      assert.ok(Number(err.metadata.get("retry-after")) >= 1, `${protocol} 429 carries Retry-After`);
      return "429";
    }
    return `${protocol}:${Code[err.code]}:${err.rawMessage}`;
  }
}

function tally(results: string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const r of results) t[r] = (t[r] ?? 0) + 1;
  return t;
}

describe("two server processes sharing Redis", { skip: redisSkipReason() }, () => {
  let redis: RedisServer;
  const dir = tempDir();
  let store: AccountsStore;
  let keys: KeyService;
  const servers: Server[] = [];
  before(async () => {
    redis = await startRedis();
    store = await openAccountsStore({ dataDir: dir });
    keys = createKeyService({ store, cacheTtlMs: 0 });
    const env = {
      THREADSIGHT_DATA_DIR: dir,
      REDIS_URL: redis.url,
      DATABASE_URL: "",
      PLANS_FILE: "config/plans/variant-b.json",
    };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  });
  after(async () => {
    for (const s of servers) {
      s.child.kill("SIGTERM");
      await new Promise((r) => s.child.once("exit", r));
    }
    await store.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const burst = (key: string, n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => call(servers[i % 2]!, PROTOCOLS[Math.floor(i / 2) % 4]!, key)));

  it("200 concurrent calls against a quota of 50 admit exactly 50, and exactly 50 are recorded", async () => {
    const { info, key } = await keys.createKey({ accountName: "mp-quota", plan: "pro", name: "quota" });
    await store.setOverrides(info.id, { quota: 50 });
    assert.deepEqual(tally(await burst(key, 200)), { ok: 50, "429": 150 });
    const rows = await store.usageBetween(info.id, utcDay(new Date()), utcDay(new Date()));
    assert.equal(
      rows.reduce((a, r) => a + r.count, 0),
      50,
    );
    const usage = await servers[1]!.usage.getUsage({}, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(usage.used, 50);
    assert.equal(usage.remaining, 0);
  });

  it("200 concurrent calls against a per-minute limit of 50 admit exactly 50", async () => {
    const { info, key } = await keys.createKey({ accountName: "mp-rate", plan: "pro", name: "rate" });
    await store.setOverrides(info.id, { ratePerMinute: 50 });
    assert.deepEqual(tally(await burst(key, 200)), { ok: 50, "429": 150 });
    const usage = await servers[0]!.usage.getUsage({}, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(usage.used, 50, "refused calls spent no quota");
  });

  it("REST, Connect, gRPC and gRPC-Web calls on one key are each counted once", async () => {
    const { info, key } = await keys.createKey({ accountName: "mp-mix", plan: "lite", name: "mix" });
    const results = [];
    for (const p of PROTOCOLS) for (const s of servers) results.push(await call(s, p, key));
    assert.deepEqual(tally(results), { ok: 8 });
    const usage = await servers[0]!.usage.getUsage({}, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(usage.used, 8);
    assert.equal(usage.remaining, 492);
    const rows = await store.usageBetween(info.id, utcDay(new Date()), utcDay(new Date()));
    assert.deepEqual(
      rows.map((r) => [r.operation, r.count]),
      [["semantic_search", 8]],
    );
  });
});
