/**
 * Topic discovery: k-means on synthetic clusters, c-TF-IDF labels, assignment of new posts,
 * stable ids across a rebuild where clusters persist, the same model whatever the posts' order,
 * seeding that finds plainly separate themes for any seed, and the atomic model file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createTopicAssigner } from "../../src/topics/assigner.js";
import { buildTopicModel } from "../../src/topics/build.js";
import { chooseK, seedTrials, sphericalKMeans } from "../../src/topics/kmeans.js";
import {
  loadTopicModel,
  reportTopicModel,
  saveTopicModel,
  TopicModelFile,
  topicModelPath,
} from "../../src/topics/model-file.js";
import { terms } from "../../src/topics/terms.js";
import { assignTopic, hasTheme, MIN_LABEL_COVERAGE, matchTopicIds } from "../../src/topics/topic-model.js";
import { unit } from "../../src/topics/vectors.js";
import { embed } from "../index/synthetic.js";
import type { ThemeName } from "./fixture.js";
import { THEMES, trendCorpus } from "./fixture.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "threadsight-topics-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

function purity(ids: string[], truth: string[]): number {
  const byCluster = new Map<string, Map<string, number>>();
  ids.forEach((id, i) => {
    const m = byCluster.get(id) ?? new Map<string, number>();
    m.set(truth[i]!, (m.get(truth[i]!) ?? 0) + 1);
    byCluster.set(id, m);
  });
  let majority = 0;
  for (const m of byCluster.values()) majority += Math.max(...m.values());
  return majority / ids.length;
}

describe("chooseK", () => {
  it("follows sqrt(n / 2) within 20..200 and never exceeds n", () => {
    assert.equal(chooseK(5), 5);
    assert.equal(chooseK(100), 20);
    assert.equal(chooseK(20_000), 100);
    assert.equal(chooseK(93_000), 200);
    assert.equal(chooseK(10_000_000), 200);
  });
});

describe("sphericalKMeans", () => {
  it("separates three well-separated directions and is deterministic for a seed", () => {
    const points: Float32Array[] = [];
    const truth: string[] = [];
    for (let i = 0; i < 90; i++) {
      const v = new Float32Array(8);
      v[i % 3] = 1;
      v[3 + (i % 5)] = 0.2 * Math.sin(i);
      points.push(unit(v));
      truth.push(String(i % 3));
    }
    const a = sphericalKMeans(points, { k: 3, seed: 1 });
    const b = sphericalKMeans(points, { k: 3, seed: 1 });
    assert.deepEqual([...a.assignments], [...b.assignments]);
    assert.equal(purity([...a.assignments].map(String), truth), 1);
    for (const c of a.centroids) assert.ok(Math.abs(Math.hypot(...c) - 1) < 1e-5);
  });
  it("returns k non-empty-seeded clusters even with duplicate points", () => {
    const points = Array.from({ length: 10 }, () => unit([1, 0, 0]));
    const r = sphericalKMeans(points, { k: 4, seed: 3 });
    assert.equal(r.centroids.length, 4);
    assert.equal(r.assignments.length, 10);
  });
});

describe("greedy k-means++ seeding", () => {
  it("draws 2 + ln k candidates per seed", () => {
    assert.deepEqual([1, 3, 177].map(seedTrials), [2, 3, 7]);
  });

  it("finds the three themes of the test corpus for every one of 40 seeds (plain k-means++ merged two for 3 of them)", () => {
    const { posts, themeOf } = trendCorpus(true);
    const truth = posts.map((p) => themeOf.get(p.id)!);
    const missed: string[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const p = purity(buildTopicModel(posts, { k: 3, seed }).topicIds, truth);
      if (p < 0.95) missed.push(`seed ${seed}: purity ${p.toFixed(2)}`);
    }
    assert.deepEqual(missed, []);
  });
});

describe("buildTopicModel", () => {
  const { posts, themeOf } = trendCorpus(false);
  const truth = posts.map((p) => themeOf.get(p.id)!);
  const built = buildTopicModel(posts, { k: 3, seed: 42, now: new Date(0) });

  it("recovers the themes and labels each topic with its own words", () => {
    assert.ok(purity(built.topicIds, truth) > 0.95, `purity ${purity(built.topicIds, truth)}`);
    for (const topic of built.model.topics) {
      const members = posts.filter((_, i) => built.topicIds[i] === topic.id).map((p) => themeOf.get(p.id)!);
      const theme = members.sort(
        (a, b) => members.filter((m) => m === b).length - members.filter((m) => m === a).length,
      )[0] as ThemeName;
      const vocab = new Set<string>(THEMES[theme]);
      assert.ok(
        topic.keywords.slice(0, 3).every((k) => vocab.has(k) || ["helpful", "content", "update"].includes(k)),
        `${theme}: ${topic.keywords.join(",")}`,
      );
      assert.equal(topic.label, topic.keywords.slice(0, 3).join(" · "));
      assert.ok(topic.terms.length > 0 && topic.size === members.length);
    }
  });

  it("records the share of each topic's posts that use a label word", () => {
    for (const topic of built.model.topics) {
      const label = new Set(topic.keywords.slice(0, 3));
      const members = posts.filter((_, i) => built.topicIds[i] === topic.id);
      const using = members.filter((p) => terms(`${p.title} ${p.content}`).some((t) => label.has(t))).length;
      assert.equal(topic.labelCoverage, Math.round((using / members.length) * 1e4) / 1e4, topic.label);
      assert.ok(hasTheme(topic), `${topic.label}: ${topic.labelCoverage}`);
    }
    assert.equal(hasTheme({ labelCoverage: MIN_LABEL_COVERAGE - 0.001 }), false);
    assert.equal(hasTheme({}), true, "a model from before the field is read as themed");
  });

  it("ranks label words by the posts using them: two posts repeating a word do not name their topic", () => {
    const spam = new Set(
      posts
        .filter((_, i) => truth[i] === "crypto")
        .slice(0, 2)
        .map((p) => p.id),
    );
    const spammed = posts.map((p) => (spam.has(p.id) ? { ...p, content: `${p.content} ${"casino ".repeat(120)}` } : p));
    const topics = buildTopicModel(spammed, { k: 3, seed: 42, now: new Date(0) }).model.topics;
    const crypto = topics.find((t) => t.keywords.some((k) => (THEMES.crypto as readonly string[]).includes(k)))!;
    assert.ok(!crypto.keywords.slice(0, 3).includes("casino"), crypto.label);
  });

  it("builds the same model from the same posts in any order (stores scan in their own order)", () => {
    const again = buildTopicModel([...posts].reverse(), { k: 3, seed: 42, now: new Date(0) });
    assert.deepEqual(again.model, built.model);
    const before = new Map(posts.map((p, i) => [p.id, built.topicIds[i]]));
    assert.deepEqual(
      again.topicIds,
      [...posts].reverse().map((p) => before.get(p.id)),
    );
    // Also when k-means is fitted on a sample of them.
    const sampled = buildTopicModel(posts, { k: 3, seed: 42, fitSample: 40, now: new Date(0) });
    const sampledReversed = buildTopicModel([...posts].reverse(), { k: 3, seed: 42, fitSample: 40, now: new Date(0) });
    assert.deepEqual(sampledReversed.model, sampled.model);
  });

  it("assigns a new post to the topic of its theme", () => {
    const pythonTopic = built.topicIds[truth.indexOf("python")]!;
    assert.equal(assignTopic(built.model, embed("python python python pandas numpy django pytest")), pythonTopic);
    assert.throws(() => assignTopic(built.model, new Float32Array(3)), /expects 64-dimensional/);
  });

  it("keeps topic ids across a rebuild where clusters persist, and gives new clusters fresh ids", () => {
    // Same corpus, another seed and order: same clusters, possibly found in another order.
    const shuffled = [...posts].reverse();
    const again = buildTopicModel(shuffled, { k: 3, seed: 7, previous: built.model });
    assert.deepEqual(again.model.topics.map((t) => t.id).sort(), built.model.topics.map((t) => t.id).sort());
    const before = new Map(posts.map((p, i) => [p.id, built.topicIds[i]]));
    const agree = shuffled.filter((p, i) => before.get(p.id) === again.topicIds[i]).length;
    assert.ok(agree / posts.length > 0.98, `only ${agree} of ${posts.length} posts kept their topic id`);
    assert.equal(again.model.version, built.model.version + 1);

    // A fourth theme appears: three ids kept, one new id, never a reused one.
    const extra = Array.from({ length: 40 }, (_, i) => ({
      id: `x${i}`,
      title: "kubernetes helm",
      content: `kubernetes pods helm charts ingress ${i}`,
      vector: embed(`kubernetes pods helm charts ingress kubelet ${i % 7}`),
    }));
    const grown = buildTopicModel([...posts, ...extra], { k: 4, seed: 42, previous: built.model });
    const kept = grown.model.topics.filter((t) => built.model.topics.some((o) => o.id === t.id));
    assert.equal(kept.length, 3);
    const fresh = grown.model.topics.find((t) => !kept.includes(t))!;
    assert.equal(fresh.id, `t${built.model.nextId}`);
    assert.match(fresh.label, /kubernetes|helm|pods|charts|ingress/);
  });

  it("matchTopicIds leaves clusters below the threshold with fresh ids", () => {
    const { ids, nextId } = matchTopicIds(built.model, [unit([1, ...new Array(63).fill(0)])], 0.99);
    assert.deepEqual(ids, [`t${built.model.nextId}`]);
    assert.equal(nextId, built.model.nextId + 1);
  });

  it("saves atomically and reloads; a file watcher picks up a replaced model", async () => {
    const file = path.join(tmp, "topics", "model.json");
    const watcher = new TopicModelFile(file, 0);
    assert.equal(await watcher.current(), undefined);
    await saveTopicModel(file, built.model);
    assert.deepEqual(await loadTopicModel(file), built.model);
    assert.equal((await watcher.current())?.version, built.model.version);
    await new Promise((r) => setTimeout(r, 15));
    await saveTopicModel(file, { ...built.model, version: 99 });
    assert.equal((await watcher.current())?.version, 99);
    assert.deepEqual(readdirSync(path.dirname(file)), ["model.json"]);
  });
});

describe("reportTopicModel (the start-up line)", () => {
  it("says a missing model leaves ListTrends empty, names a loaded one, and logs an unreadable one without throwing", async () => {
    const lines: string[] = [];
    const log = {
      info: (obj: object, msg: string) => lines.push(`info ${msg} ${JSON.stringify(obj)}`),
      warn: (msg: string) => lines.push(`warn ${msg}`),
      error: (_obj: object, msg: string) => lines.push(`error ${msg}`),
    };
    const { model } = buildTopicModel(trendCorpus(false).posts, { k: 3, seed: 42 });
    const file = path.join(tmp, "report", "topics", "model.json");
    assert.equal(await reportTopicModel(new TopicModelFile(file, 0), log), "missing");
    assert.match(lines.at(-1)!, /^warn .*threadsight topics rebuild/);
    await saveTopicModel(file, model);
    assert.equal(await reportTopicModel(new TopicModelFile(file, 0), log), "loaded");
    assert.match(lines.at(-1)!, /^info topic model loaded .*"topics":3,/);
    writeFileSync(file, "{ not json");
    assert.equal(await reportTopicModel(new TopicModelFile(file, 0), log), "unreadable");
    assert.match(lines.at(-1)!, /^error topic model unreadable/);
  });
});

describe("createTopicAssigner (the ingest hook)", () => {
  it("tags nothing before a model exists, then the nearest topic of the current model", async () => {
    const dataDir = path.join(tmp, "assigner");
    const assigner = createTopicAssigner(dataDir, 0);
    const vectors = [embed("bitcoin wallet ethereum ledger"), embed("python pandas numpy pytest")];
    assert.deepEqual(await assigner.assign(vectors), ["", ""]);
    const { posts } = trendCorpus(false);
    const { model, topicIds } = buildTopicModel(posts, { k: 3, seed: 42 });
    await saveTopicModel(topicModelPath(dataDir), model);
    const ids = await assigner.assign(vectors);
    const themeTopic = (theme: string) =>
      topicIds[
        posts.findIndex((p) =>
          p.title.split(" ").some((w) => (THEMES as Record<string, readonly string[]>)[theme]!.includes(w)),
        )
      ]!;
    assert.deepEqual(ids, [themeTopic("crypto"), themeTopic("python")]);
  });
});

describe("terms", () => {
  it("lower-cases, drops stopwords, numbers and short tokens, keeps tech tokens", () => {
    assert.deepEqual(terms("The SEO of Google's C++ and Node.js in 2016: it's 42 ok"), [
      "seo",
      "google",
      "c++",
      "node.js",
    ]);
  });
});
