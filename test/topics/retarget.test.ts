/**
 * The topic model after a reembed: centroids recomputed as the normalised mean of the new vectors
 * of each topic's posts, in the new width; ids, labels and the rest kept; empty topics dropped.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { retargetTopicModel, TopicSums } from "../../src/topics/retarget.js";
import type { TopicModel } from "../../src/topics/topic-model.js";
import { assignTopic, TOPIC_MODEL_FORMAT } from "../../src/topics/topic-model.js";

const topic = (id: string, centroid: number[]) => ({
  id,
  label: `label ${id}`,
  keywords: [id],
  centroid,
  size: 2,
  terms: [[id, 2]] as [string, number][],
});

const MODEL: TopicModel = {
  format: TOPIC_MODEL_FORMAT,
  version: 3,
  createdAt: "2000-01-01T00:00:00.000Z",
  dimensions: 3,
  seed: 1,
  nextId: 4,
  topics: [topic("t1", [1, 0, 0]), topic("t2", [0, 1, 0]), topic("t3", [0, 0, 1])],
};

test("centroids move to the mean of the new vectors; empty topics are dropped", () => {
  const sums = new TopicSums(2);
  sums.add("t1", [3, 0]);
  sums.add("t1", [1, 0]);
  sums.add("t2", [0, 2]);
  sums.add("t2", [2, 0]);
  sums.add("", [5, 5]);
  const moved = retargetTopicModel(MODEL, sums);
  assert.equal(moved.dimensions, 2);
  assert.equal(moved.version, 4);
  assert.deepEqual(
    moved.topics.map((t) => t.id),
    ["t1", "t2"],
  );
  assert.deepEqual(moved.topics[0]!.centroid, [1, 0]);
  const [x, y] = moved.topics[1]!.centroid;
  assert.ok(Math.abs(x! - Math.SQRT1_2) < 1e-6 && Math.abs(y! - Math.SQRT1_2) < 1e-6);
  assert.equal(moved.topics[0]!.label, "label t1");
  assert.equal(moved.nextId, 4);
  assert.equal(assignTopic(moved, [0.1, 0.9]), "t2");
  assert.throws(() => assignTopic(MODEL, [0.1, 0.9]), /expects 3-dimensional vectors/);
});
