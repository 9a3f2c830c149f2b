/**
 * Property-based fuzzing of the REST contract with schemathesis, driven by the served OpenAPI
 * document: a real service over a real sample of posts (so results carry every field), an
 * Enterprise key with a rate override high enough that limits never answer instead of the
 * operation, and a bounded, seeded run (reproducible). Any finding fails the test with
 * schemathesis's own report: a 5xx, a status, header, content type or body the document does
 * not allow.
 *
 * schemathesis is installed by scripts/install-schemathesis.sh (run by setup-test-env.sh) into a
 * venv under ~/.cache/threadsight; SCHEMATHESIS_BIN overrides where it is looked for. Missing,
 * it skips on a developer machine and fails under CI or REQUIRE_SCHEMATHESIS=1.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { OPENAPI_FILE } from "../../src/openapi/openapi-file.js";
import { OPENAPI_PATH } from "../../src/openapi/openapi-route.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import { missingBackend } from "../harness/backend-policy.js";
import { corporaSkip, rebuildTopics, seedSample } from "../harness/seed.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

/** The pinned version, from the script that installs it (scripts/setup-test-env.sh runs it). */
const SCHEMATHESIS_VERSION = /^SCHEMATHESIS_VERSION=(\S+)$/m.exec(
  readFileSync(path.join(PACKAGE_ROOT, "scripts/install-schemathesis.sh"), "utf8"),
)![1]!;
const BIN =
  process.env.SCHEMATHESIS_BIN ??
  path.join(os.homedir(), ".cache/threadsight", `schemathesis-${SCHEMATHESIS_VERSION}`, "bin/schemathesis");

/**
 * Smaller than the default sample (each ingest run pays the embedder's start-up): Reddit for
 * subforums and leads, Hacker News for 2015-2016 dates and trends.
 */
const FUZZ_SAMPLE = [
  { file: "reddit_top2013/raw_csv/startups.csv", limit: 100 },
  { file: "hackernews_2015_2016/hacker_news.csv", limit: 150 },
];

/** Checks that decide pass/fail; everything else schemathesis can check needs stateful APIs or is advisory. */
const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
];
/** Per operation; with the coverage phase this is ~100-200 requests per operation. */
const MAX_EXAMPLES = 40;
const SEED = 20261122;
/** Hard stop for the whole run, ms; a hung run is a failure, not a stuck suite. */
const RUN_TIMEOUT_MS = 240_000;

function skipReason(): false | string {
  const data = corporaSkip();
  if (data !== false) return data;
  return existsSync(BIN)
    ? false
    : missingBackend("schemathesis", `${BIN} not found (bash scripts/install-schemathesis.sh installs it)`);
}

/** Runs schemathesis as a child (never synchronously: the service runs in this process). */
function runSchemathesis(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    // Run in a scratch directory: schemathesis and Hypothesis keep caches in the working directory.
    const child = spawn(BIN, [...args, "--generation-database", "none"], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", COLUMNS: "160", SCHEMATHESIS_HOOKS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, RUN_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

const skip = skipReason();

describe("schemathesis against the OpenAPI document", { skip }, () => {
  let svc: RunningService;
  let key: string;
  before(async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-fuzz-"));
    await seedSample({ THREADSIGHT_DATA_DIR: dataDir }, FUZZ_SAMPLE);
    await rebuildTopics({ THREADSIGHT_DATA_DIR: dataDir });
    // A generous deadline: on a loaded CI machine a slow call must not turn into a 504 (this
    // suite checks the contract, not speed).
    svc = await startService({ dataDir, env: { LOG_LEVEL: "warn", REQUEST_TIMEOUT_MS: "120000" } });
    const created = await svc.service.keys.createKey({
      accountName: "schemathesis",
      plan: "enterprise",
      name: "fuzz",
      overrides: { ratePerMinute: 10_000_000 },
    });
    key = created.key;
  });
  after(async () => svc?.stop());

  /** The operations a JUnit report says were tested ("POST /api/v1/leads", ...). */
  function testedOperations(junit: string): string[] {
    return [...junit.matchAll(/<testcase[^>]*\bname="([^"]+)"/g)].map((m) => m[1]!).sort();
  }

  test("finds no server error and no response the document does not allow", async (t) => {
    const reportDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-schemathesis-"));
    try {
      const junitPath = path.join(reportDir, "junit.xml");
      const res = await runSchemathesis(
        [
          "run",
          svc.url + OPENAPI_PATH,
          "--url",
          svc.url,
          "--header",
          `Authorization: Bearer ${key}`,
          "--checks",
          CHECKS.join(","),
          "--phases",
          "examples,coverage,fuzzing",
          "--max-examples",
          String(MAX_EXAMPLES),
          "--seed",
          String(SEED),
          "--workers",
          "2",
          "--request-timeout",
          "150",
          "--no-shrink",
          "--report",
          "junit",
          "--report-junit-path",
          junitPath,
        ],
        reportDir,
      );
      const report = `schemathesis exited ${res.code}${res.timedOut ? " (killed after the time limit)" : ""}\n${res.output}`;
      t.diagnostic(/\d+ generated[^\n]*/.exec(res.output)?.[0] ?? "no test case count in the output");
      assert.equal(res.timedOut, false, report);
      assert.equal(res.code, 0, report);
      // A run that tested nothing would exit 0 too: every operation must have been exercised.
      // Every operation the served document lists (so a new one is fuzzed without editing this).
      // The Server-Sent Events route is among them: the fuzz account owns no monitor, so every
      // generated request gets an error envelope (404 for an unknown id, 400, 401) that the
      // document describes, and no case opens a stream that would never end. A real stream is
      // checked against the document in test/monitors/watch-monitor.test.ts.
      const doc = (await (await fetch(svc.url + OPENAPI_PATH)).json()) as { paths: Record<string, object> };
      const documented = Object.entries(doc.paths)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
        .sort();
      assert.ok(documented.length >= 17, `only ${documented.length} operations documented`);
      assert.deepEqual(testedOperations(await readFile(junitPath, "utf8")), documented, report);
      const errors = svc.logs.filter((line) => /"level":(50|60)/.test(line));
      assert.deepEqual(errors, [], "the service logged errors during the run");
    } finally {
      await rm(reportDir, { recursive: true, force: true });
    }
  });

  test("the same run fails when the document and the responses disagree (the check can fail)", async () => {
    // A copy of the document that claims `used` is a string: every real usage body breaks it.
    const doc = JSON.parse(await readFile(OPENAPI_FILE, "utf8")) as {
      components: { schemas: Record<string, { properties: Record<string, { type: string }> }> };
    };
    doc.components.schemas.GetUsageResponse!.properties.used!.type = "string";
    const dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-schemathesis-"));
    try {
      const file = path.join(dir, "broken.openapi.json");
      await writeFile(file, JSON.stringify(doc));
      const res = await runSchemathesis(
        [
          "run",
          file,
          "--url",
          svc.url,
          "--header",
          `Authorization: Bearer ${key}`,
          "--checks",
          CHECKS.join(","),
          "--include-path",
          "/api/v1/usage",
          "--phases",
          "fuzzing",
          "--max-examples",
          "3",
          "--seed",
          String(SEED),
          "--no-shrink",
        ],
        dir,
      );
      assert.notEqual(res.code, 0, res.output);
      assert.match(res.output, /Response violates schema/i, res.output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
