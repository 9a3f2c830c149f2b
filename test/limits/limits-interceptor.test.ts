/**
 * The limits interceptor inside a real Connect router (createRouterTransport) with the generated
 * SearchService and UsageService, real keys from the key service on a SQLite accounts store, and
 * a test auth interceptor that sets CALLER from the Authorization header as the real one does.
 * Asserts codes, headers, trailers/metadata, error details and the persisted usage rows.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { Client, Interceptor } from "@connectrpc/connect";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { QuotaFailureSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import {
  SearchService,
  SemanticSearchResponseSchema,
  VectorSearchResponseSchema,
} from "../../gen/threadsight/v1/search_pb.js";
import { UsageService } from "../../gen/threadsight/v1/usage_pb.js";
import type { Caller } from "../../src/accounts/caller.js";
import type { KeyService } from "../../src/accounts/key-service.js";
import { createKeyService } from "../../src/accounts/key-service.js";
import { openAccountsStore } from "../../src/accounts/open-store.js";
import type { AccountsStore } from "../../src/accounts/store.js";
import { utcDay } from "../../src/accounts/usage-args.js";
import { usageService } from "../../src/api/usage.js";
import { CALLER } from "../../src/auth/context.js";
import { AppError } from "../../src/errors/app-error.js";
import { reasonOf, toConnectError } from "../../src/errors/to-connect.js";
import { createLimitsInterceptor } from "../../src/limits/limits-interceptor.js";
import type { Limits } from "../../src/limits/open-limits.js";
import type { PlanCatalog } from "../../src/limits/plan-catalog.js";
import { loadPlanCatalog } from "../../src/limits/plan-catalog.js";
import { catalogOf, limitsFor, tempDir } from "./fixtures.js";

/** Handler failures after admission, by query text: the service's faults and the client's. */
const FAILURES: Record<string, () => Error> = {
  "fail:internal": () => new Error("the index exploded"),
  "fail:unavailable": () => new AppError("UNAVAILABLE", "the index is unavailable"),
  "fail:deadline": () => new AppError("DEADLINE_EXCEEDED", "the deadline passed"),
  "fail:canceled": () => new AppError("CANCELED", "the client cancelled"),
  "fail:not_found": () => new AppError("NOT_FOUND", "no such thing"),
};

let accounts = 0;
/** A new account name per key: limits count per account, so tests must not share one. */
function freshAccount(): string {
  return `account ${++accounts}`;
}

/** Stand-in for the auth interceptor: authenticates the bearer key and sets CALLER. */
function testAuth(keys: KeyService): Interceptor {
  return (next) => async (req) => {
    const presented = req.header.get("authorization")?.replace(/^Bearer /, "");
    const result = await keys.authenticate(presented);
    if (!result.ok) throw toConnectError(new AppError("UNAUTHENTICATED", `key refused: ${result.failure}`));
    req.contextValues.set(CALLER, result.caller);
    return next(req);
  };
}

interface Harness {
  search: Client<typeof SearchService>;
  usage: Client<typeof UsageService>;
  keys: KeyService;
  store: AccountsStore;
  limits: Limits;
}

async function harness(dir: string, catalog: PlanCatalog): Promise<Harness> {
  const store = await openAccountsStore({ dataDir: dir });
  const keys = createKeyService({ store, cacheTtlMs: 0 });
  const limits = await limitsFor(catalog, { dataDir: dir });
  const transport = createRouterTransport(
    (router) => {
      router.service(SearchService, {
        async semanticSearch(req) {
          // A validation failure after admission: the call must still count.
          if (req.query === "") throw new AppError("MISSING_FIELD", "query is required", { field: "query" });
          // Outcomes by query text, to charge (or not) each kind of failure after admission.
          const failure = FAILURES[req.query];
          if (failure !== undefined) throw failure();
          return create(SemanticSearchResponseSchema, { query: req.query });
        },
        async vectorSearch(req) {
          return create(VectorSearchResponseSchema, { query: req.query });
        },
      });
      router.service(UsageService, usageService({ enforcer: limits.enforcer, store }));
    },
    {
      router: { interceptors: [testAuth(keys), createLimitsInterceptor({ enforcer: limits.enforcer, usage: store })] },
    },
  );
  return {
    search: createClient(SearchService, transport),
    usage: createClient(UsageService, transport),
    keys,
    store,
    limits,
  };
}

/** Registers before/after hooks that open a harness on `catalogFile` in a temp dir and clean up. */
function harnessPerSuite(catalogFile: string): () => Harness {
  const dir = tempDir();
  let h: Harness | undefined;
  before(async () => {
    h = await harness(dir, loadPlanCatalog(catalogFile));
  });
  after(async () => {
    await h?.limits.close();
    await h?.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => h!;
}

/** The Caller the key authenticates as. */
async function callerOf(h: Harness, key: string): Promise<Caller> {
  const result = await h.keys.authenticate(key);
  assert.ok(result.ok);
  return result.caller;
}

function auth(key: string): { headers: Record<string, string> } {
  return { headers: { authorization: `Bearer ${key}` } };
}

/** Calls SemanticSearch and returns the response headers (or the error). */
async function semantic(
  h: Harness,
  key: string,
  query = "pricing",
): Promise<{ header: Headers; trailer: Headers } | ConnectError> {
  let header = new Headers();
  let trailer = new Headers();
  try {
    await h.search.semanticSearch(
      { query },
      { ...auth(key), onHeader: (x) => (header = x), onTrailer: (x) => (trailer = x) },
    );
    return { header, trailer };
  } catch (err) {
    return ConnectError.from(err);
  }
}

describe("limits interceptor (Variant B, Connect router)", () => {
  const get = harnessPerSuite("config/plans/variant-b.json");
  let h: Harness;
  before(() => {
    h = get();
  });

  it("a successful call carries every limit header", async () => {
    const { key } = await h.keys.createKey({ accountName: freshAccount(), plan: "lite", name: "t" });
    const res = await semantic(h, key);
    assert.ok(!(res instanceof ConnectError), String(res));
    assert.equal(res.header.get("x-ratelimit-limit"), "50");
    assert.equal(res.header.get("x-ratelimit-remaining"), "49");
    assert.equal(res.header.get("x-quota-limit"), "500");
    assert.equal(res.header.get("x-quota-remaining"), "499");
    assert.match(res.header.get("x-quota-reset") ?? "", /^\d{10}$/);
    assert.match(res.header.get("ratelimit-policy") ?? "", /^"minute";q=50;w=60, "quota";q=500;w=\d+$/);
    assert.match(res.header.get("ratelimit") ?? "", /^"minute";r=49;t=\d+, "quota";r=499;t=\d+$/);
    assert.equal(res.header.get("retry-after"), null);
  });

  it("Free: the 4th call in a minute is a 429 QUOTA_EXCEEDED with Retry-After, RetryInfo and QuotaFailure", async () => {
    const { key } = await h.keys.createKey({ accountName: freshAccount(), plan: "free", name: "t" });
    for (let i = 0; i < 3; i++) assert.ok(!((await semantic(h, key)) instanceof ConnectError));
    const err = await semantic(h, key);
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.ResourceExhausted);
    assert.equal(reasonOf(err), "QUOTA_EXCEEDED");
    assert.match(
      err.rawMessage,
      /^quota exceeded: 3 calls per 7 days on the Free plan; .*the Lite plan allows 500 calls/,
    );
    const retryAfter = Number(err.metadata.get("retry-after"));
    assert.ok(retryAfter > 6 * 86_400 && retryAfter <= 7 * 86_400, `retry-after ${retryAfter}`);
    assert.equal(err.metadata.get("x-quota-remaining"), "0");
    assert.equal(err.metadata.get("x-quota-limit"), "3");
    assert.equal(err.metadata.get("x-ratelimit-limit"), "3");
    const [retry] = err.findDetails(RetryInfoSchema);
    assert.equal(retry?.retryDelay?.seconds, BigInt(retryAfter));
    const [quota] = err.findDetails(QuotaFailureSchema);
    assert.equal(quota?.violations[0]?.quotaValue, 3n);
    assert.equal(quota?.violations[0]?.subject, "plan:free");
  });

  it("a per-minute refusal is RATE_LIMITED with a Retry-After of at most 60 s", async () => {
    const { info, key } = await h.keys.createKey({ accountName: freshAccount(), plan: "starter", name: "t" });
    await h.store.setOverrides(info.id, { ratePerMinute: 2 });
    await semantic(h, key);
    await semantic(h, key);
    const err = await semantic(h, key);
    assert.ok(err instanceof ConnectError);
    assert.equal(reasonOf(err), "RATE_LIMITED");
    const retryAfter = Number(err.metadata.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
    assert.equal(err.metadata.get("x-ratelimit-remaining"), "0");
    assert.equal(err.metadata.get("x-quota-remaining"), "4998", "the refused call did not spend quota");
    assert.match(
      err.rawMessage,
      /^rate limit exceeded: 2 requests per minute on the Starter plan; the window resets at .*; the Pro plan allows 100 per minute$/,
    );
    assert.equal(err.findDetails(RetryInfoSchema).length, 1);
  });

  it("enterprise is unlimited and says so", async () => {
    const { key } = await h.keys.createKey({ accountName: freshAccount(), plan: "enterprise", name: "t" });
    const res = await semantic(h, key);
    assert.ok(!(res instanceof ConnectError));
    assert.equal(res.header.get("x-quota-limit"), "unlimited");
    assert.equal(res.header.get("x-quota-remaining"), "unlimited");
    assert.equal(res.header.get("x-quota-reset"), null);
    assert.equal(res.header.get("ratelimit-policy"), `"minute";q=1000;w=60`);
  });

  it("a call that fails validation is counted and its error carries the limit headers", async () => {
    const { info, key } = await h.keys.createKey({ accountName: freshAccount(), plan: "lite", name: "t" });
    const err = await semantic(h, key, "");
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(reasonOf(err), "MISSING_FIELD");
    assert.equal(err.metadata.get("x-quota-remaining"), "499");
    assert.equal(err.metadata.get("retry-after"), null);
    const rows = await h.store.usageBetween(info.id, utcDay(new Date()), utcDay(new Date()));
    assert.deepEqual(
      rows.map((r) => [r.operation, r.count]),
      [["semantic_search", 1]],
    );
  });

  it("a call that fails through the service's fault (INTERNAL, UNAVAILABLE) is not charged to the quota; the minute window still counts it", async () => {
    const { key, info } = await h.keys.createKey({ accountName: freshAccount(), plan: "lite", name: "t" });
    for (const [query, code] of [
      ["fail:internal", Code.Internal],
      ["fail:unavailable", Code.Unavailable],
    ] as const) {
      const err = await semantic(h, key, query);
      assert.ok(err instanceof ConnectError, query);
      assert.equal(err.code, code, query);
      assert.equal(err.metadata.get("x-ratelimit-limit"), "50", "the error still carries the limit headers");
      assert.equal(err.metadata.get("x-quota-remaining"), "500", "and they show the quota point given back");
    }
    const s = await h.limits.enforcer.snapshot(await callerOf(h, key));
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.used, 0, "both quota points were given back");
    assert.equal(s.rate.remaining, 48, "both calls spent their per-minute point");
    assert.deepEqual(await h.store.usageBetween(info.id, "2000-01-01", "2100-01-01"), [], "no usage row for them");
    const ok = await semantic(h, key);
    assert.ok(!(ok instanceof ConnectError));
    assert.equal(ok.header.get("x-quota-remaining"), "499", "the next successful call is the first one charged");
  });

  it("a call that fails through the client (deadline, cancel, not found) is charged like a success", async () => {
    const { key, info } = await h.keys.createKey({ accountName: freshAccount(), plan: "lite", name: "t" });
    for (const [query, code] of [
      ["fail:deadline", Code.DeadlineExceeded],
      ["fail:canceled", Code.Canceled],
      ["fail:not_found", Code.NotFound],
    ] as const) {
      const err = await semantic(h, key, query);
      assert.ok(err instanceof ConnectError && err.code === code, query);
    }
    const s = await h.limits.enforcer.snapshot(await callerOf(h, key));
    assert.ok(!s.quota.unlimited);
    assert.equal(s.quota.used, 3);
    const rows = await h.store.usageBetween(info.id, utcDay(new Date()), utcDay(new Date()));
    assert.deepEqual(
      rows.map((r) => [r.operation, r.count]),
      [["semantic_search", 3]],
    );
  });

  it("usage is free, and reports the period, per-operation counts and the limits", async () => {
    const { info, key } = await h.keys.createKey({ accountName: freshAccount(), plan: "lite", name: "t" });
    await semantic(h, key);
    await semantic(h, key);
    await h.search.vectorSearch({ query: "x" }, auth(key));
    let header = new Headers();
    const u1 = await h.usage.getUsage({}, { ...auth(key), onHeader: (x) => (header = x) });
    const u2 = await h.usage.getUsage({}, auth(key));
    assert.equal(header.get("x-ratelimit-limit"), null, "usage calls are not metered");
    assert.equal(u1.plan, "lite");
    assert.equal(u1.used, 3);
    assert.equal(u2.used, 3, "reading usage did not count");
    assert.equal(u1.limit, 500);
    assert.equal(u1.remaining, 497);
    assert.equal(u1.unlimited, false);
    assert.equal(u1.rateLimitPerMinute, 50);
    const now = new Date();
    assert.equal(Number(u1.periodStart?.seconds) * 1000, Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    assert.equal(Number(u1.periodEnd?.seconds) * 1000, Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    assert.deepEqual(
      u1.operations.map((o) => [o.operation, o.count]),
      [
        ["semantic_search", 2],
        ["vector_search", 1],
        ["trends", 0],
        ["leads", 0],
        ["monitors", 0],
        ["get_posts", 0],
        ["export_posts", 0],
        ["aggregate", 0],
      ],
    );
    const rows = await h.store.usageBetween(info.id, utcDay(now), utcDay(now));
    assert.equal(
      rows.reduce((a, r) => a + r.count, 0),
      3,
    );
  });

  it("every key of an account reports the account's usage and draws on its one quota", async () => {
    const a = await h.keys.createKey({ accountName: freshAccount(), plan: "free", name: "a" });
    const b = await h.keys.createKey({ accountId: a.account.id, plan: "free", name: "b" });
    const stranger = await h.keys.createKey({ accountName: freshAccount(), plan: "free", name: "c" });
    await semantic(h, a.key);
    await semantic(h, a.key);
    await h.search.vectorSearch({ query: "x" }, auth(b.key));
    const refused = await semantic(h, b.key);
    assert.ok(
      refused instanceof ConnectError && refused.code === Code.ResourceExhausted,
      "Free allows 3 calls per account",
    );
    for (const key of [a.key, b.key]) {
      const u = await h.usage.getUsage({}, auth(key));
      assert.deepEqual([u.used, u.limit, u.remaining], [3, 3, 0]);
      assert.deepEqual(
        u.operations.map((o) => [o.operation, o.count]),
        [
          ["semantic_search", 2],
          ["vector_search", 1],
          ["trends", 0],
          ["leads", 0],
          ["monitors", 0],
          ["get_posts", 0],
          ["export_posts", 0],
          ["aggregate", 0],
        ],
      );
    }
    assert.ok(!((await semantic(h, stranger.key)) instanceof ConnectError), "another account has its own quota");
    assert.equal((await h.usage.getUsage({}, auth(stranger.key))).used, 1);
  });

  it("unlimited usage counts from the usage rows", async () => {
    const { key } = await h.keys.createKey({ accountName: freshAccount(), plan: "enterprise", name: "t" });
    await semantic(h, key);
    const u = await h.usage.getUsage({}, auth(key));
    assert.equal(u.unlimited, true);
    assert.equal(u.used, 1);
    assert.equal(u.limit, 0);
    assert.equal(u.rateLimitPerMinute, 1000);
  });

  it("200 concurrent calls on a key with a quota of 50 admit exactly 50 and record exactly 50", async () => {
    const { info, key } = await h.keys.createKey({ accountName: freshAccount(), plan: "pro", name: "t" });
    await h.store.setOverrides(info.id, { quota: 50 });
    const results = await Promise.all(Array.from({ length: 200 }, () => semantic(h, key)));
    const refused = results.filter((r): r is ConnectError => r instanceof ConnectError);
    assert.equal(results.length - refused.length, 50);
    assert.ok(refused.every((e) => reasonOf(e) === "QUOTA_EXCEEDED" && e.metadata.get("retry-after") !== null));
    const rows = await h.store.usageBetween(info.id, utcDay(new Date()), utcDay(new Date()));
    assert.equal(
      rows.reduce((a, r) => a + r.count, 0),
      50,
    );
  });
});

describe("limits interceptor (Variant A)", () => {
  const get = harnessPerSuite("config/plans/variant-a.json");
  let h: Harness;
  before(() => {
    h = get();
  });

  it("Free gets 403 PLAN_NO_API_ACCESS and is not counted", async () => {
    const { info, key } = await h.keys.createKey({ accountName: freshAccount(), plan: "free", name: "t" });
    const err = await semantic(h, key);
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.PermissionDenied);
    assert.equal(reasonOf(err), "PLAN_NO_API_ACCESS");
    assert.match(err.rawMessage, /upgrade to Pro or Enterprise/);
    assert.deepEqual(await h.store.usageBetween(info.id, "2000-01-01", "2100-01-01"), []);
  });

  it("Pro: 60/min and 10000 per month", async () => {
    const { key } = await h.keys.createKey({ accountName: freshAccount(), plan: "pro", name: "t" });
    const res = await semantic(h, key);
    assert.ok(!(res instanceof ConnectError));
    assert.equal(res.header.get("x-ratelimit-limit"), "60");
    assert.equal(res.header.get("x-quota-limit"), "10000");
  });
});

describe("limits interceptor wiring", () => {
  it("a metered call that reaches it without CALLER is refused, not run for free", async () => {
    const dir = tempDir();
    const limits = await limitsFor(
      catalogOf([
        { id: "pro", name: "Pro", api_access: true, quota: 5, quota_period: "calendar_month", rate_per_minute: 5 },
      ]),
      { dataDir: dir },
    );
    const recorded: string[] = [];
    const transport = createRouterTransport(
      (router) =>
        router.service(SearchService, {
          semanticSearch: async () => create(SemanticSearchResponseSchema, {}),
          vectorSearch: async () => create(VectorSearchResponseSchema, {}),
        }),
      {
        router: {
          interceptors: [
            createLimitsInterceptor({
              enforcer: limits.enforcer,
              usage: { recordUsage: async (k) => void recorded.push(k) },
            }),
          ],
        },
      },
    );
    const err = await createClient(SearchService, transport)
      .semanticSearch({ query: "x" })
      .catch((e: unknown) => ConnectError.from(e));
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.Unauthenticated);
    assert.deepEqual(recorded, []);
    await limits.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
