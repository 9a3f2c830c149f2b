/**
 * The lead model: the committed file loads and a malformed one is refused naming the field; the
 * ingest classifier decides hand-written posts whose outcome must hold (a clear ask, a headline, a
 * job post the veto takes), refuses vectors of another width; fitting is deterministic for a seed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { createLeadClassifier } from "../../src/enrich/leads/classifier.js";
import { balancedWeights, bestThreshold, fitLeadModel, leadScores } from "../../src/enrich/leads/fit-lead-model.js";
import { RULE_FEATURES } from "../../src/enrich/leads/lead-features.js";
import { checkLeadModel, LEAD_MODEL_CLASSES, loadLeadModel } from "../../src/enrich/leads/lead-model.js";
import { VOTERS } from "../../src/enrich/leads/lf-votes.js";
import { sentimentText } from "../../src/enrich/post-enricher.js";
import { createSentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { startUseEmbedder, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { Post } from "../../src/model/post.js";

function post(title: string, content: string, subforum = "smallbusiness"): Post {
  return {
    id: `t:${title}`,
    source: "reddit",
    nativeId: title,
    title,
    content,
    subforum,
    author: "",
    upvotes: 3,
    comments: 2,
    created: 0,
    url: "",
  };
}

describe("lead model file", () => {
  it("loads the committed model for USE-lite vectors and the current features", () => {
    const m = loadLeadModel();
    assert.equal(m.embeddingModel, USE_MODEL_ID);
    assert.equal(m.dimensions, 512);
    assert.deepEqual(m.ruleFeatures, RULE_FEATURES);
    assert.deepEqual(m.softmax.classes, LEAD_MODEL_CLASSES);
    assert.ok(m.leadThreshold > 0 && m.leadThreshold < 1);
  });

  it("refuses a malformed file, naming the field", () => {
    // The vector, then the rule reading, the label model and one vote per labelling function.
    const width = 512 + RULE_FEATURES.length;
    const good = () => structuredClone(loadLeadModel()) as unknown as Record<string, any>;
    const cases: [string, (m: Record<string, any>) => void, RegExp][] = [
      ["format", (m) => (m.format = "threadsight-lead-model-v0"), /lead model: format must be/],
      ["dimensions", (m) => (m.dimensions = 0), /lead model: dimensions must be a positive whole number/],
      ["ruleFeatures", (m) => m.ruleFeatures.pop(), /lead model: ruleFeatures must list the features/],
      ["leadThreshold", (m) => (m.leadThreshold = 1.5), /lead model: leadThreshold must be a number between 0 and 1/],
      ["classes", (m) => m.softmax.classes.reverse(), /lead model: softmax.classes must be none,/],
      [
        "mean",
        (m) => m.softmax.mean.pop(),
        new RegExp(`lead model: softmax.mean must be an array of ${width} numbers`),
      ],
      ["std", (m) => (m.softmax.std[3] = 0), /lead model: softmax.std must be positive/],
      ["weights row", (m) => m.softmax.weights[2].push(0), /lead model: softmax.weights\[2\] must be an array/],
      ["weights value", (m) => (m.softmax.weights[1][0] = null), /softmax.weights\[1\] must hold finite numbers/],
      ["bias", (m) => (m.softmax.bias = [0, 0]), /lead model: softmax.bias must be an array of 5 numbers/],
    ];
    assert.equal(RULE_FEATURES.length, 35 + LEAD_MODEL_CLASSES.length + VOTERS.length);
    for (const [name, spoil, message] of cases) {
      const m = good();
      spoil(m);
      assert.throws(() => checkLeadModel(m), message, name);
    }
    assert.throws(() => checkLeadModel(null), /lead model: file must be a JSON object/);
    assert.doesNotThrow(() => checkLeadModel(good()));
  });
});

describe("lead classifier with the model", () => {
  let embedder: Embedder;
  before(async () => {
    embedder = await startUseEmbedder(1);
  });
  after(async () => {
    await embedder.close();
  });
  const sentiment = createSentimentClassifier();
  const leads = createLeadClassifier();
  const classify = async (p: Post) => {
    const [v] = await embedder.embed([postEmbeddingText(p)]);
    return leads.classify(p, v, sentiment.classifyOne(sentimentText(p), v!));
  };

  it("calls a clear ask for software a lead, with a score from its probability", async () => {
    const d = await classify(
      post(
        "Looking for a CRM for a small sales team",
        "We are five people selling B2B and outgrew our spreadsheet. Which CRM would you recommend? Budget is around $50 a month per seat.",
      ),
    );
    assert.notEqual(d.leadType, "");
    assert.ok(d.leadScore >= 1 && d.leadScore <= 100);
    assert.equal(d.rejectedAs, "");
  });

  it("calls a news headline with no body no lead", async () => {
    const d = await classify(post("Apple reports record quarterly revenue driven by iPhone sales", "", "technology"));
    assert.equal(d.leadType, "");
    assert.equal(d.leadScore, 0);
  });

  it("lets the job-post veto decide a hiring post whatever its asks", async () => {
    const d = await classify(
      post(
        "[Hiring] Looking for a freelance web developer",
        "We are hiring a React developer for a three month project. Competitive salary, remote. Send your resume to jobs@example.com.",
        "forhire",
      ),
    );
    assert.equal(d.leadType, "");
    assert.equal(d.rejectedAs, "job_post");
  });

  it("reads USE-lite vectors at ingest when the index holds another model's, as sentiment does", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lead-model-"));
    const enricher = await createIngestEnricher(dir, { model: "all-minilm-l6-v2-384", dimensions: 384 });
    try {
      const p = post("Looking for a CRM for a small sales team", "Which CRM would you recommend for five sellers?");
      const minilm = new Float32Array(384).fill(1 / Math.sqrt(384));
      const [enriched] = await enricher.enrich([p], [minilm]);
      const expected = await classify(p);
      assert.equal(enriched!.leadType, expected.leadType);
      assert.equal(enriched!.leadScore, expected.leadScore);
    } finally {
      await enricher.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a post without its vector or with a vector of another model's width", () => {
    const p = post("Need a CRM", "Which one?");
    const s = sentiment.classifyOne("Need a CRM", new Float32Array(512));
    assert.throws(
      () => leads.classify(p, new Float32Array(384), s),
      /expects the post's use-lite-512 vector \(512-d\), got 384-d/,
    );
    assert.throws(() => leads.classify(p, undefined, s), /got none/);
    assert.throws(() => leads.classify(p, new Float32Array(512)), /needs the post's sentiment/);
  });
});

describe("lead model fitting", () => {
  // Two separable clusters per class over four features, enough for the trainer to learn.
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < 60; i++) {
    const c = i % 5;
    const row = new Float64Array(5);
    row[c] = 1 + ((i * 7) % 3) / 10;
    x.push(row);
    y.push(c);
  }
  const options = { l2: 0.01, epochs: 5, batchSize: 8, learningRate: 0.01, seed: 3 };

  it("gives the same weights for the same seed, other weights for another", () => {
    const a = fitLeadModel(x, y, options);
    const b = fitLeadModel(x, y, options);
    assert.deepEqual(a, b);
    assert.notDeepEqual(fitLeadModel(x, y, { ...options, seed: 4 }).weights, a.weights);
    assert.deepEqual(a.classes, LEAD_MODEL_CLASSES);
  });

  it("balances classes by inverse frequency and refuses labels that are no class", () => {
    assert.deepEqual(balancedWeights([0, 0, 0, 1], 2), [4 / 6, 2]);
    assert.deepEqual(balancedWeights([0, 1], 3), [2 / 3, 2 / 3, 0]);
    assert.throws(
      () =>
        fitLeadModel(
          x,
          y.map(() => 7),
          options,
        ),
      /labels must be class indices 0..4/,
    );
    assert.throws(() => fitLeadModel([], [], options), /got 0 rows and 0 labels/);
  });

  it("scores leads and picks the threshold with the best F1", () => {
    assert.deepEqual(leadScores([0, 1, 2, 0], [0, 1, 1, 3]), {
      precision: 2 / 3,
      recall: 1,
      f1: 0.8,
      typeAccuracy: 0.5,
    });
    const p = [0.9, 0.6, 0.3, 0.2].map((none) => Float64Array.from([none, 1 - none, 0, 0, 0]));
    const best = bestThreshold([0, 0, 1, 1], p);
    assert.equal(best.scores.f1, 1);
    assert.equal(best.threshold, 0.45);
  });
});
