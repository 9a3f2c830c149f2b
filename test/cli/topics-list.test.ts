/**
 * `threadsight topics list` over a model file: every topic with its size and label, and a
 * catch-all topic (label words used by few of its posts) marked as left out of ListTrends, in
 * text and in --json.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { saveTopicModel, topicModelPath } from "../../src/topics/model-file.js";
import type { Topic } from "../../src/topics/topic-model.js";
import { MIN_LABEL_COVERAGE, TOPIC_MODEL_FORMAT } from "../../src/topics/topic-model.js";
import { runCli } from "../harness/seed.js";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "threadsight-topics-cli-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const topic = (id: string, label: string, labelCoverage: number | undefined): Topic => ({
  id,
  label,
  keywords: label.split(" · "),
  centroid: [1, 0],
  size: 500,
  terms: [],
  ...(labelCoverage === undefined ? {} : { labelCoverage }),
});

describe("threadsight topics list", () => {
  it("marks a topic with no common theme as left out of ListTrends", async () => {
    await saveTopicModel(topicModelPath(dataDir), {
      format: TOPIC_MODEL_FORMAT,
      version: 3,
      createdAt: "2026-11-28T00:00:00.000Z",
      dimensions: 2,
      seed: 42,
      nextId: 4,
      topics: [
        topic("t1", "stripe · payments · invoice", 0.41),
        topic("t2", "pic · beautiful · drunk", MIN_LABEL_COVERAGE / 2),
        topic("t3", "seo · backlinks · serp", undefined),
      ],
    });
    const env = { THREADSIGHT_DATA_DIR: dataDir };
    const text = await runCli(["topics", "list"], env);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^t1 +500 {2}stripe · payments · invoice$/);
    assert.match(
      lines[1]!,
      /^t2 +500 {2}pic · beautiful · drunk {2}\(no common theme: 3\.0% of its posts use a label word; left out of ListTrends\)$/,
    );
    assert.match(lines[2]!, /^t3 +500 {2}seo · backlinks · serp$/, "a topic from a model without coverage stays in");
    const json = await runCli(["topics", "list", "--json"], env);
    assert.equal(json.code, 0, json.stderr);
    const rows = (
      JSON.parse(json.stdout) as { topics: { id: string; in_trends: boolean; label_coverage: number | null }[] }
    ).topics;
    assert.deepEqual(
      rows.map((r) => [r.id, r.in_trends, r.label_coverage]),
      [
        ["t1", true, 0.41],
        ["t2", false, MIN_LABEL_COVERAGE / 2],
        ["t3", true, null],
      ],
    );
  });
});
