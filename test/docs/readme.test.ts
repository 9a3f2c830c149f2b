/**
 * The README's first run, as written: a fresh data directory is loaded the way scripts/start.sh
 * loads it (scripts/load-sample.sh), the service starts on it, and every `sh` block of the
 * README's "First run" section runs in bash, in order, in one shell (so the key the first block
 * exports reaches the calls). Blocks fenced `shell` are shown but not run (they start the
 * service, run the suite or name a file of the reader's). The only rewrites are the address
 * (`localhost:8080` -> the test's port) and the command (`node bin/threadsight.js` -> the same
 * dispatcher run from source, since dist/ is not built here).
 * Each call must answer with success and real results from the sample.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { PACKAGE_ROOT } from "../../src/package-root.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const CLI_FROM_SOURCE = "node --import tsx test/harness/cli-entry.ts";

/** The fenced blocks of one README section: language and body, in order. */
export function sectionBlocks(markdown: string, heading: string): { lang: string; body: string }[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has no "## ${heading}" section`);
  const next = markdown.indexOf("\n## ", start + heading.length + 4);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? "", body: m[2] ?? "" }));
}

/** Splits concatenated JSON documents (curl prints them back to back, buf curl one per call). */
export function jsonDocuments(text: string): unknown[] {
  const docs: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && --depth === 0) docs.push(JSON.parse(text.slice(start, i + 1)));
  }
  return docs;
}

function run(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd: PACKAGE_ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Length of an array field of a response, 0 when it is absent or not an array. */
function count(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

let dataDir = "";
let svc: RunningService | undefined;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-readme-"));
  const loaded = await run("bash scripts/load-sample.sh", {
    THREADSIGHT_DATA_DIR: dataDir,
    THREADSIGHT_CMD: CLI_FROM_SOURCE,
    EMBED_WORKERS: "1",
  });
  assert.equal(loaded.code, 0, `scripts/load-sample.sh failed:\n${loaded.stderr}`);
  svc = await startService({ dataDir });
});

after(async () => {
  await svc?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

test("the README's first-run blocks answer with real results from the sample", async () => {
  const readme = await readFile(path.join(PACKAGE_ROOT, "README.md"), "utf8");
  const blocks = sectionBlocks(readme, "First run");
  const runnable = blocks.filter((b) => b.lang === "sh");
  assert.ok(runnable.length >= 3, `expected the key, REST and gRPC blocks, found ${runnable.length}`);
  assert.ok(svc);
  const port = new URL(svc.url).port;
  const marker = "\n__README_BLOCK__\n";
  const script = [
    "set -euo pipefail",
    ...runnable.map(
      (b) =>
        `${b.body.replaceAll("node bin/threadsight.js", CLI_FROM_SOURCE).replaceAll("localhost:8080", `127.0.0.1:${port}`)}\nprintf '${marker.replaceAll("\n", "\\n")}'`,
    ),
  ].join("\n");
  const result = await run(script, { THREADSIGHT_DATA_DIR: dataDir });
  assert.equal(result.code, 0, `a README block failed:\n${result.stderr}\n${result.stdout}`);
  const outputs = result.stdout.split(marker);
  const blockOf = (needle: string): number => runnable.findIndex((b) => b.body.includes(needle));

  const rest = jsonDocuments(outputs[blockOf("curl -s")] ?? "") as {
    success: boolean;
    data: Record<string, unknown>;
  }[];
  assert.equal(rest.length, 5, "five REST calls, five answers");
  for (const doc of rest) assert.equal(doc.success, true, JSON.stringify(doc).slice(0, 400));
  const [semantic, vector, trends, leads, usage] = rest.map((d) => d.data);
  assert.ok(count(semantic?.results) > 0, "semantic search found posts");
  assert.match(String(semantic?.ai_summary), /\[\d+\]/, "the summary quotes a result");
  assert.ok(count(vector?.results) > 0, "vector search found posts");
  assert.ok(count(trends?.trends) > 0, "trends found topics");
  assert.ok(count(leads?.results) > 0, "leads found posts");
  assert.ok(Number(usage?.used) >= 4, "usage counts the four calls");

  const grpcOut = outputs[blockOf("buf curl")] ?? "";
  assert.match(grpcOut, /threadsight\.v1\.SearchService/, "reflection lists the services");
  const grpc = jsonDocuments(grpcOut) as Record<string, unknown>[];
  assert.equal(grpc.length, 5, "five gRPC calls, five answers");
  const [gSemantic, gVector, gTrends, gLeads, gUsage] = grpc;
  assert.ok(count(gSemantic?.results) > 0);
  assert.ok(count(gVector?.results) > 0);
  assert.ok(count(gTrends?.trends) > 0);
  assert.ok(count(gLeads?.results) > 0);
  assert.ok(Number(gUsage?.used) >= 8, "usage counts the REST and gRPC calls");
});

test("the README's helpers split blocks and JSON as the README writes them", () => {
  const md = "# T\n\n## First run\n\n```sh\necho a\n```\n\n```shell\necho b\n```\n\n## Next\n\n```sh\necho c\n```\n";
  assert.deepEqual(sectionBlocks(md, "First run"), [
    { lang: "sh", body: "echo a\n" },
    { lang: "shell", body: "echo b\n" },
  ]);
  assert.deepEqual(jsonDocuments('{"a":"}{"}{"b":{"c":1}}\n'), [{ a: "}{" }, { b: { c: 1 } }]);
});
