/**
 * A killed ingest, restarted, ends with every post exactly once, on both backends.
 * `threadsight ingest` runs as a child process into a real LanceDB index (temp data dir) or a
 * real Weaviate server (test harness, fresh collection); it is SIGKILLed once its checkpoint
 * shows a few batches written, then run again on the same file.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { loadConfig } from "../../src/config.js";
import { USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { openSearchIndex } from "../../src/index/open-index.js";
import { startWeaviate, weaviateSkipReason } from "../harness/weaviate.js";
import { CORPORA, corporaSkip } from "./corpora.js";
import { runIngestCli } from "./spawn-cli.js";

const dir = mkdtempSync(path.join(tmpdir(), "threadsight-resume-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 1200;
const BATCH = 100;

function checkpointRecords(dataDir: string): number {
  const cpDir = path.join(dataDir, "ingest-checkpoints");
  if (!existsSync(cpDir)) return 0;
  const files = readdirSync(cpDir).filter((f) => f.endsWith(".json"));
  if (files.length === 0) return 0;
  try {
    return (JSON.parse(readFileSync(path.join(cpDir, files[0]!), "utf8")) as { records: number }).records;
  } catch {
    return 0;
  }
}

/** The first ROWS rows of the real HN CSV (titles only, so embedding is quick), in a temp file. */
function sample(): { input: string; ids: string[] } {
  const lines = readFileSync(path.join(CORPORA, "hackernews_2015_2016/hacker_news.csv"), "utf8").split("\n");
  const input = path.join(dir, "hn-sample.csv");
  writeFileSync(input, lines.slice(0, ROWS + 1).join("\n") + "\n");
  const ids = lines.slice(1, ROWS + 1).map((l) => `hackernews:${l.split(",")[0]}`);
  assert.equal(new Set(ids).size, ROWS);
  return { input, ids };
}

/** Kill, restart, then check the index through the same factory the CLI uses. */
async function killAndResume(name: string, env: Record<string, string>): Promise<void> {
  const { input, ids } = sample();
  const dataDir = path.join(dir, name);
  const args = [input, "--batch-size", String(BATCH)];
  const killed = await runIngestCli(args, dataDir, {
    workers: 2,
    env,
    killWhen: () => checkpointRecords(dataDir) >= 3 * BATCH,
  });
  assert.equal(killed.signal, "SIGKILL", `first run should be killed, got code ${killed.code}: ${killed.stderr}`);
  const reached = checkpointRecords(dataDir);
  assert.ok(reached >= 3 * BATCH && reached < ROWS, `checkpoint at ${reached}`);

  const resumed = await runIngestCli(args, dataDir, { workers: 2, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /resuming after record \d/);
  assert.match(resumed.stdout, new RegExp(`read ${ROWS.toLocaleString("en-US")}, `));
  assert.equal(checkpointRecords(dataDir), 0, "checkpoint removed once the file is done");

  const index = await openSearchIndex(
    loadConfig({ ...process.env, THREADSIGHT_DATA_DIR: dataDir, EMBEDDINGS_URL: "", WEAVIATE_URL: "", ...env }),
  );
  try {
    const info = await index.open(USE_MODEL_ID, 512);
    assert.equal(info.count, ROWS, "row count equals the file's rows: no duplicates, nothing lost");
    const stored = await index.get(ids);
    assert.deepEqual(
      stored.map((p) => p.id),
      ids,
    );
  } finally {
    await index.close();
  }
}

test("LanceDB: SIGKILL mid-ingest, restart: same count as the file, no duplicates", {
  skip: corporaSkip(),
  timeout: 600_000,
}, async () => {
  await killAndResume("lancedb", {});
});

test("Weaviate: SIGKILL mid-ingest, restart: same count as the file, no duplicates", {
  skip: corporaSkip() || weaviateSkipReason() || false,
  timeout: 600_000,
}, async () => {
  const server = await startWeaviate();
  try {
    await killAndResume("weaviate", {
      WEAVIATE_URL: server.httpUrl,
      WEAVIATE_GRPC_URL: server.grpcUrl,
      WEAVIATE_COLLECTION: `IngestResume${Date.now()}`,
    });
  } finally {
    await server.stop();
  }
});
