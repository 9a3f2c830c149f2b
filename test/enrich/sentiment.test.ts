/**
 * The sentiment classifier: the committed model loads and matches the embedder's dimensions,
 * clear cases get the obvious label, scores and probabilities stay in range, and on a slice of
 * GoEmotions test (read from ../shared/data) it beats the VADER baseline it was built to beat.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Embedder } from "../../src/enrich/embedder.js";
import { createSentimentClassifier, type SentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { LEXICON_FEATURES, sentimentFeatures } from "../../src/enrich/sentiment/features.js";
import { loadSentimentModel } from "../../src/enrich/sentiment/model-file.js";
import { vaderLabel, vaderScores } from "../../src/enrich/sentiment/vader.js";
import { startUseEmbedder, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { SENTIMENT_LABELS } from "../../src/model/post.js";
import { multiclass } from "../eval/metrics.js";
import { loadGoEmotions } from "../eval/sentiment-datasets.js";
import { hasData, SHARED_DATA } from "../eval/shared-data.js";
import { missingBackend } from "../harness/backend-policy.js";

describe("sentiment model file", () => {
  it("loads, names the embedder's model and has one weight per feature and class", () => {
    const m = loadSentimentModel();
    assert.equal(m.embeddingModel, USE_MODEL_ID);
    assert.equal(m.dimensions, 512);
    assert.deepEqual(m.lexiconFeatures, [...LEXICON_FEATURES]);
    assert.deepEqual([...m.softmax.classes].sort(), [...SENTIMENT_LABELS].sort());
    const width = m.dimensions + LEXICON_FEATURES.length;
    assert.equal(m.softmax.mean.length, width);
    for (const row of m.softmax.weights) {
      assert.equal(row.length, width);
      assert.ok(row.every(Number.isFinite));
    }
    assert.ok(m.devMacroF1 > 0.6 && m.devMacroF1 <= 1, String(m.devMacroF1));
    assert.deepEqual(m.frustration.softmax.classes, ["other", "frustration"]);
    assert.ok(m.frustration.softmax.weights.every((row) => row.length === width && row.every(Number.isFinite)));
    assert.ok(m.frustration.emotions.includes("annoyance"));
    assert.equal(m.provenance.licence, "Apache-2.0");
    // Selection on GoEmotions alone: no evaluation-only set may choose the model.
    assert.match(String(m.provenance.selectionData), /^GoEmotions train only for the sentiment head/);
    assert.doesNotMatch(String(m.provenance.selectionData), /TweetEval|Sentiment140/);
    assert.equal(m.classOffsets.length, m.softmax.classes.length);
    assert.ok(m.frustration.devBestThreshold > 0 && m.frustration.devBestThreshold < 1);
  });
});

describe("VADER baseline", () => {
  it("uses VADER's published thresholds", () => {
    assert.equal(vaderLabel(0.05), "positive");
    assert.equal(vaderLabel(0.049), "neutral");
    assert.equal(vaderLabel(-0.05), "negative");
    assert.ok(vaderScores("I love it, it is great!").compound > 0.5);
  });
});

describe("sentiment features", () => {
  it("read a typographic apostrophe as VADER's ASCII one, so its negation counts", () => {
    const v = new Float32Array(4);
    const curly = sentimentFeatures("This app doesn\u2019t work and I don\u2019t like it.", v);
    const ascii = sentimentFeatures("This app doesn't work and I don't like it.", v);
    assert.deepEqual([...curly], [...ascii]);
    // The negation flips "like": the text reads negative, not positive.
    assert.ok(curly[v.length]! < 0, String(curly[v.length]));
  });
});

describe("sentiment classifier with the bundled embedder", () => {
  let embedder: Embedder;
  let classifier: SentimentClassifier;
  before(async () => {
    embedder = await startUseEmbedder(1);
    classifier = createSentimentClassifier({ embedder });
  });
  after(async () => {
    await embedder.close();
  });

  const clear = [
    { text: "I love this app, it works perfectly and their support team was amazing. Thank you!", label: "positive" },
    {
      text: "This is the worst service I have ever used. I hate it, it broke twice and they refused a refund.",
      label: "negative",
    },
    { text: "The quarterly report is due on Tuesday and covers sales in three regions.", label: "neutral" },
    { text: "Congrats on the launch, well deserved!", label: "positive" },
    { text: "Ugh, lost all my files again. So frustrating.", label: "negative" },
  ] as const;

  it("labels clear cases and puts their scores on the right side of zero", async () => {
    const results = await classifier.classify(clear.map((c) => c.text));
    results.forEach((r, i) => {
      assert.equal(r.label, clear[i]!.label, clear[i]!.text);
      if (r.label === "positive") assert.ok(r.score > 0.3, `${r.score}`);
      if (r.label === "negative") assert.ok(r.score < -0.3, `${r.score}`);
      if (r.label === "neutral") assert.ok(Math.abs(r.score) < 0.5, `${r.score}`);
    });
  });

  it("reads a complaint as more frustrated than praise", async () => {
    const [praise, complaint] = await classifier.classify([clear[0].text, clear[1].text]);
    assert.ok(complaint!.frustration > 0.5, `${complaint!.frustration}`);
    assert.ok(complaint!.frustration > praise!.frustration + 0.3);
  });

  it("keeps scores in -1..1, probabilities summing to 1, label = most probable", async () => {
    const texts = ["", "!!!", "meh", "best day ever", "terrible", "a".repeat(5000), ...clear.map((c) => c.text)];
    for (const r of await classifier.classify(texts)) {
      assert.ok(r.score >= -1 && r.score <= 1);
      const p = r.probabilities;
      assert.ok(Math.abs(p.positive + p.neutral + p.negative - 1) < 1e-9);
      assert.equal(r.score, p.positive - p.negative);
      assert.ok(r.frustration >= 0 && r.frustration <= 1);
      assert.ok(SENTIMENT_LABELS.every((l) => p[r.label] >= p[l]));
    }
  });

  it("gives the same result for passed vectors as for its own embedding, and checks their width", async () => {
    const texts = clear.map((c) => c.text);
    const vectors = await embedder.embed(texts);
    assert.deepEqual(await classifier.classify(texts, vectors), await classifier.classify(texts));
    assert.throws(() => classifier.classifyOne("x", new Float32Array(384)), /512-d/);
    await assert.rejects(createSentimentClassifier().classify(["x"]), /needs vectors or an embedder/);
  });

  const goe = "eval/sentiment_goemotions_reddit/group/test.tsv";
  const skip = hasData(goe) ? false : missingBackend("data", `${goe} not found under ${SHARED_DATA}`);
  it("beats VADER's macro-F1 on 400 GoEmotions test comments", { skip }, async () => {
    const rows = loadGoEmotions("test")
      .rows.filter((_, i) => i % 11 === 0)
      .slice(0, 400);
    const gold = rows.map((r) => r.label);
    const ours = (await classifier.classify(rows.map((r) => r.text))).map((r) => r.label);
    const vader = rows.map((r) => vaderLabel(vaderScores(r.text).compound));
    const o = multiclass(gold, ours, SENTIMENT_LABELS).macroF1;
    const v = multiclass(gold, vader, SENTIMENT_LABELS).macroF1;
    assert.ok(o > v + 0.03, `ours ${o.toFixed(3)} vs VADER ${v.toFixed(3)}`);
  });
});
