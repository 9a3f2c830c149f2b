/**
 * Hostile REST input on both index backends (LanceDB by default, Weaviate via WEAVIATE_URL),
 * with real sample posts loaded by the ingest CLI. Every answer is a 4xx naming the field and
 * rule, or - where the input is legitimately a search string - a 200 whose results still obey
 * the date range and subforum filter: an injected query is searched as text, never as filter
 * syntax. No 5xx, no crash, and the service keeps answering.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { corporaSkip, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";
import type { WeaviateServer } from "../harness/weaviate.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";

const SEMANTIC = "/api/v1/search/semantic";
const VECTOR = "/api/v1/search/vector";
const LEADS = "/api/v1/leads";
const TRENDS = "/api/v1/trends";

const SAMPLE = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 40 },
  { file: "reddit_top2013/raw_csv/smallbusiness.csv", limit: 40 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 40 },
];

/** Filter syntax of SQL, LanceDB/DataFusion, Weaviate GraphQL, plus NUL, RTL and zero-width. */
const HOSTILE = [
  "'",
  '"',
  "' OR 1=1 --",
  '") OR ("',
  "created > 0 OR 1=1",
  "`id` IS NOT NULL",
  "subforum = 'smallbusiness' OR subforum IS NOT NULL",
  '{path:["id"], operator: NotEqual, valueText:""}',
  "}} { Get { Post { id } } }",
  "a\u0000b",
  "\u202Eevil\u202C",
  "zero\u200Bwidth\uFEFF",
  "%_\\",
];

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted field by field
}

async function post(
  svc: RunningService,
  key: string,
  route: string,
  body: string,
  contentType = "application/json",
): Promise<Answer> {
  const res = await fetch(svc.url + route, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": contentType },
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    assert.fail(`${route} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, body: parsed };
}

/** A 4xx with the error envelope and a message; `message` narrows it when given. */
function assertClientError(res: Answer, status: number | number[], message?: RegExp): void {
  const allowed = Array.isArray(status) ? status : [status];
  assert.ok(
    allowed.includes(res.status),
    `expected ${allowed.join("/")}, got ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
  );
  assert.equal(res.body.success, false);
  assert.equal(typeof res.body.error.message, "string");
  assert.ok(res.body.error.message.length > 0);
  if (message) assert.match(res.body.error.message, message);
  assert.doesNotMatch(JSON.stringify(res.body), /at .*\.(ts|js):\d+|DataFusion|lance|weaviate|graphql/i);
}

function suite(
  name: string,
  skip: false | string | undefined,
  setup: () => Promise<{ svc: RunningService; cleanup: () => Promise<void> }>,
): void {
  describe(`REST bad input on ${name}`, { skip: skip || false }, () => {
    let svc: RunningService;
    let cleanup: () => Promise<void>;
    let key: string;
    before(async () => {
      ({ svc, cleanup } = await setup());
      key = await svc.createKey("enterprise");
    });
    after(async () => cleanup?.());

    const call = (route: string, body: unknown) => post(svc, key, route, JSON.stringify(body));

    test("the sample is searchable, and a plain filtered search holds its filter", async () => {
      const res = await call(VECTOR, { query: "marketing a small business", limit: 10, subforums: ["smallbusiness"] });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.data.results.length > 0, "the sample has smallbusiness posts");
      for (const r of res.body.data.results) assert.equal(r.subforum, "smallbusiness");
    });

    test("injection in query is searched as text: date range and subforum filter still hold", async () => {
      for (const hostile of HOSTILE) {
        for (const route of [VECTOR, SEMANTIC]) {
          const body =
            route === VECTOR
              ? {
                  query: `pricing ${hostile}`,
                  limit: 20,
                  subforums: ["startups"],
                  start_date: "2013-01-01",
                  end_date: "2013-12-31",
                }
              : { query: `pricing ${hostile}`, limit: 20, subforums: ["startups"] };
          const res = await call(route, body);
          if (hostile.includes("\u0000")) {
            // NUL is refused up front rather than searched: it cannot be stored or filtered on.
            if (res.status !== 200) assertClientError(res, 400, /query/);
            continue;
          }
          assert.equal(
            res.status,
            200,
            `${route} ${JSON.stringify(hostile)}: ${JSON.stringify(res.body).slice(0, 300)}`,
          );
          for (const r of res.body.data.results) {
            assert.equal(r.subforum, "startups", `${route} ${JSON.stringify(hostile)} escaped the subforum filter`);
            if (route === VECTOR)
              assert.ok(
                r.created >= "2013-01-01" && r.created < "2014-01-01",
                `${JSON.stringify(hostile)} escaped the date range: ${r.created}`,
              );
          }
        }
      }
      const leads = await call(LEADS, { query: "' OR 1=1 --", limit: 5, min_score: 90 });
      assert.equal(leads.status, 200, JSON.stringify(leads.body));
      for (const r of leads.body.data.results) assert.ok(r.lead_score >= 90, `min_score escaped: ${r.lead_score}`);
    });

    test("injection in subforums matches no subforum (or is refused), never widens the filter", async () => {
      for (const hostile of HOSTILE) {
        const res = await call(VECTOR, { query: "pricing", limit: 20, subforums: [hostile] });
        if (res.status === 200) assert.deepEqual(res.body.data.results, [], `${JSON.stringify(hostile)} matched posts`);
        else assertClientError(res, 400, /subforums/);
        const mixed = await call(SEMANTIC, { query: "pricing", limit: 20, subforums: ["startups", hostile] });
        if (mixed.status === 200) for (const r of mixed.body.data.results) assert.equal(r.subforum, "startups");
        else assertClientError(mixed, 400, /subforums/);
      }
    });

    test("injection in start_date / end_date is 400 INVALID_DATE naming the field", async () => {
      for (const hostile of HOSTILE) {
        assertClientError(await call(VECTOR, { query: "pricing", start_date: hostile }), 400, /start_date/);
        assertClientError(await call(VECTOR, { query: "pricing", end_date: `2013-01-01${hostile}` }), 400, /end_date/);
        assertClientError(await call(TRENDS, { start_date: "2013-01-01", end_date: hostile }), 400, /end_date/);
      }
    });

    test("injection in page_token is 400 naming page_token", async () => {
      for (const hostile of [...HOSTILE, "eyJvZmZzZXQiOi0xfQ", "x".repeat(600)]) {
        assertClientError(await call(SEMANTIC, { query: "pricing", page_token: hostile }), 400, /page_token/);
        assertClientError(await call(VECTOR, { query: "pricing", page_token: hostile }), 400, /page_token/);
      }
    });

    test("impossible and zone-suffixed dates are 400 INVALID_DATE", async () => {
      for (const date of [
        "2024-02-30",
        "2024-13-01",
        "0000-00-00",
        "2024-01-01T00:00:00Z",
        "2024-01-01+02:00",
        "2024-1-1",
        "20240101",
        " 2024-01-01",
        "2024-02-29x",
      ]) {
        const res = await call(VECTOR, { query: "pricing", start_date: date });
        assertClientError(res, 400);
        assert.equal(res.body.error.reason, "INVALID_DATE", date);
      }
      // 2024 is a leap year: the 29th is a real date.
      assert.equal((await call(VECTOR, { query: "pricing", start_date: "2024-02-29" })).status, 200);
    });

    test("huge, fractional and quoted limits are 400 naming limit", async () => {
      for (const raw of ["1e12", "1e309", '"10"', "-1", "0", "1.5", "9007199254740993", "null"]) {
        const res = await post(svc, key, SEMANTIC, `{"query":"pricing","limit":${raw}}`);
        if (raw === "null") {
          // null means "not set" for an optional field in proto3 JSON: the default applies.
          assert.equal(res.status, 200, JSON.stringify(res.body));
          continue;
        }
        assertClientError(res, 400, /limit/);
      }
    });

    test("very long queries: 10k characters is 400 naming the bound, 1 MB is 413", async () => {
      assertClientError(
        await call(SEMANTIC, { query: "q".repeat(10_000) }),
        400,
        /query must be at most 500 characters, got 10000/,
      );
      assertClientError(await call(VECTOR, { query: "q".repeat(1_000_000) }), 413, /at most 65536 bytes/);
    });

    test("10,000 levels of nesting are refused without a stack overflow", async () => {
      const deep = (open: string, close: string) => `${open.repeat(10_000)}${close.repeat(10_000)}`;
      assertClientError(await post(svc, key, SEMANTIC, `{"query":"x","subforums":${deep("[", "]")}}`), [400, 413]);
      assertClientError(await post(svc, key, SEMANTIC, deep('{"a":', "}").replace(/\{"a":\}$/, "{}")), [400, 413]);
      assertClientError(await post(svc, key, SEMANTIC, `{"query":${deep("[", "]")}}`), [400, 413]);
    });

    test("non-object bodies, duplicate keys, a BOM and wrong content types are 4xx", async () => {
      for (const raw of ["[]", '"pricing"', "42", "true", "null", ""])
        assertClientError(await post(svc, key, SEMANTIC, raw), 400);
      assertClientError(await post(svc, key, SEMANTIC, '{"query":"a","query":"b"}'), 400, /query/);
      const bom = await post(svc, key, SEMANTIC, '\uFEFF{"query":"pricing"}');
      if (bom.status !== 200) assertClientError(bom, 400);
      assertClientError(await post(svc, key, SEMANTIC, '{"query":"pricing"}', "text/plain"), 415, /application\/json/);
      assertClientError(await post(svc, key, SEMANTIC, '{"query":"pricing"}', "application/xml"), 415);
    });

    test("the service still answers a valid call", async () => {
      const res = await call(SEMANTIC, { query: "pricing a saas product", limit: 3 });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await fetch(`${svc.url}/readyz`)).status, 200);
    });
  });
}

suite("LanceDB (embedded default)", corporaSkip(), async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-badinput-"));
  await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, SAMPLE);
  const svc = await startService({ dataDir });
  return {
    svc,
    cleanup: async () => {
      await svc.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

suite("Weaviate", weaviateSkipReason() ?? corporaSkip(), async () => {
  const weaviate: WeaviateServer = await startWeaviate();
  const env = {
    WEAVIATE_URL: weaviate.httpUrl,
    WEAVIATE_GRPC_URL: weaviate.grpcUrl,
    WEAVIATE_COLLECTION: `BadInput${Date.now()}`,
  };
  const scratch = await mkdtemp(path.join(os.tmpdir(), "threadsight-badinput-w-"));
  try {
    await seedSample({ ...env, THREADSIGHT_DATA_DIR: scratch }, SAMPLE);
    const svc = await startService({ env });
    return {
      svc,
      cleanup: async () => {
        await svc.stop();
        await weaviate.stop();
        await rm(scratch, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await weaviate.stop();
    throw err;
  }
});
