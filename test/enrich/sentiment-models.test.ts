/**
 * The per-encoder sentiment models: each committed file loads for its encoder and labels clear
 * sentences right with that encoder's vectors; an encoder without a model, or an embedder that
 * is not the model's, is refused at creation; ingest picks the model of the index's vectors; the
 * fitting is deterministic and class-stratified; and the committed files name the GoEmotions rows
 * that the training recipe selects today (shared data).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Embedder } from "../../src/enrich/embedder.js";
import { startMiniLmEmbedder } from "../../src/enrich/minilm/minilm-embedder.js";
import { defaultMiniLmDirectory, MINILM_FILES, MINILM_MODEL_ID } from "../../src/enrich/minilm/minilm-files.js";
import { createSentimentClassifier } from "../../src/enrich/sentiment/classifier.js";
import { fitSentiment, SENTIMENT_FIT, stratifiedHoldout } from "../../src/enrich/sentiment/fit-sentiment.js";
import { loadSentimentModel, SENTIMENT_EMBEDDINGS } from "../../src/enrich/sentiment/model-file.js";
import { startUseEmbedder, USE_MODEL_ID } from "../../src/enrich/use-embedder.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";
import type { Post } from "../../src/model/post.js";
import { idsDigest, trainingRows } from "../eval/sentiment-training.js";
import { hasData, SHARED_DATA } from "../eval/shared-data.js";
import { missingBackend } from "../harness/backend-policy.js";

const MINILM_DIR = process.env.EMBEDDINGS_MODEL_DIR ?? defaultMiniLmDirectory();
const miniLmPresent = existsSync(path.join(MINILM_DIR, MINILM_FILES.weights.name));
const skipMiniLm = miniLmPresent
  ? false
  : missingBackend("minilm", `no model files in ${MINILM_DIR} (bash scripts/install-minilm.sh)`);

const ENCODERS = [
  { id: USE_MODEL_ID, dimensions: 512, start: () => startUseEmbedder(1), skip: false as const },
  { id: MINILM_MODEL_ID, dimensions: 384, start: () => startMiniLmEmbedder(1, MINILM_DIR), skip: skipMiniLm },
];

const CLEAR = [
  { text: "I love this app, it works perfectly and their support team was amazing. Thank you!", label: "positive" },
  {
    text: "This is the worst service I have ever used. I hate it, it broke twice and they refused a refund.",
    label: "negative",
  },
  { text: "The quarterly report is due on Tuesday and covers sales in three regions.", label: "neutral" },
  { text: "Congrats on the launch, well deserved!", label: "positive" },
  { text: "Ugh, lost all my files again. So frustrating.", label: "negative" },
] as const;

describe("committed sentiment models", () => {
  it("exist for both bundled encoders, each a plain class-balanced regression chosen on GoEmotions train", () => {
    assert.deepEqual([...SENTIMENT_EMBEDDINGS].sort(), [MINILM_MODEL_ID, USE_MODEL_ID].sort());
    for (const { id, dimensions } of ENCODERS) {
      const m = loadSentimentModel(id);
      assert.equal(m.embeddingModel, id);
      assert.equal(m.dimensions, dimensions);
      assert.deepEqual(m.classOffsets, [0, 0, 0]);
      assert.ok(SENTIMENT_FIT.l2Grid.includes(Number(m.hyperparameters.l2)), String(m.hyperparameters.l2));
      assert.match(String(m.provenance.selectionData), /^GoEmotions train only for the sentiment head/);
      assert.ok(m.devMacroF1 > 0.6 && m.devMacroF1 <= 1, `${id} dev ${m.devMacroF1}`);
    }
  });

  it("refuses an encoder without a model, and an embedder that is not the model's", () => {
    assert.throws(
      () => createSentimentClassifier({ embeddingModel: "text-embedding-3-small" }),
      /no sentiment model for embedding model "text-embedding-3-small": models exist for use-lite-512, all-minilm-l6-v2-384/,
    );
    const miniLm = { model: MINILM_MODEL_ID, dimensions: 384 } as Embedder;
    assert.throws(
      () => createSentimentClassifier({ embedder: miniLm, embeddingModel: USE_MODEL_ID }),
      /expects use-lite-512 \(512-d\) vectors, embedder gives all-minilm-l6-v2-384/,
    );
    assert.throws(
      () => createSentimentClassifier({ embeddingModel: MINILM_MODEL_ID }).classifyOne("x", new Float32Array(512)),
      /384-d/,
    );
  });
});

for (const encoder of ENCODERS) {
  describe(`sentiment with ${encoder.id} vectors`, { skip: encoder.skip }, () => {
    let embedder: Embedder;
    before(async () => {
      embedder = await encoder.start();
    });
    after(async () => {
      await embedder?.close();
    });

    it("picks the encoder's model from the embedder and labels clear sentences", async () => {
      const classifier = createSentimentClassifier({ embedder });
      assert.equal(classifier.embeddingModel, encoder.id);
      const results = await classifier.classify(CLEAR.map((c) => c.text));
      results.forEach((r, i) => assert.equal(r.label, CLEAR[i]!.label, CLEAR[i]!.text));
      assert.ok(results[1]!.frustration > results[0]!.frustration + 0.3);
    });

    it("is what ingest labels posts with when the index holds these vectors", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "sentiment-ingest-"));
      const enricher = await createIngestEnricher(path.join(dir, "no-topics"), embedder);
      try {
        const posts = CLEAR.map(
          (c, i): Post => ({
            id: `reddit:p${i}`,
            source: "reddit",
            nativeId: `p${i}`,
            title: c.text,
            content: "",
            subforum: "test",
            author: "",
            upvotes: 1,
            comments: 0,
            created: 0,
            url: "",
          }),
        );
        const vectors = await embedder.embed(posts.map((p) => p.title));
        const direct = createSentimentClassifier({ embeddingModel: encoder.id });
        const enriched = await enricher.enrich(posts, vectors);
        enriched.forEach((p, i) => assert.equal(p.sentiment, direct.classifyOne(posts[i]!.title, vectors[i]!).label));
      } finally {
        await enricher.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

describe("fitting", () => {
  // Three classes in two features with some overlap: enough to tell a penalty grid apart.
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < 240; i++) {
    const c = i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1;
    const jitter = ((i * 7919) % 101) / 101 - 0.5;
    x.push(Float64Array.from([c + 1.5 * jitter, (c === 2 ? 1 : 0) - jitter, jitter]));
    y.push(c);
  }
  const options = { ...SENTIMENT_FIT, l2Grid: [1e-4, 1e-2, 1], lexiconScaleGrid: [1, 3], epochs: 4, batchSize: 16 };

  it("gives the same model twice, chosen from the grid on a stratified held-out fifth", () => {
    const a = fitSentiment(x, y, options);
    const b = fitSentiment(x, y, options);
    assert.deepEqual(a, b);
    assert.equal(a.grid.length, 6);
    assert.ok(options.l2Grid.includes(a.l2) && options.lexiconScaleGrid.includes(a.lexiconScale));
    const chosen = a.grid.find((p) => p.l2 === a.l2 && p.lexiconScale === a.lexiconScale)!;
    assert.equal(chosen.heldOutMacroF1, Math.max(...a.grid.map((p) => p.heldOutMacroF1)));
    assert.ok(chosen.heldOutMacroF1 > 0.6, String(chosen.heldOutMacroF1));
    for (const c of [0, 1, 2]) {
      const total = y.filter((v) => v === c).length;
      const held = a.held.filter((i) => y[i] === c).length;
      assert.equal(held, Math.round(total * 0.2), `class ${c}`);
    }
  });

  it("holds out rows by a seed: another seed, another fifth", () => {
    const one = stratifiedHoldout(y, 0.2, 7);
    assert.deepEqual(one, stratifiedHoldout(y, 0.2, 7));
    assert.notDeepEqual(one.held, stratifiedHoldout(y, 0.2, 8).held);
    assert.equal(one.fit.length + one.held.length, y.length);
  });
});

const goe = "eval/sentiment_goemotions_reddit/group/train.tsv";
const skipData = hasData(goe) ? false : missingBackend("data", `${goe} not found under ${SHARED_DATA}`);
describe("committed files against today's training recipe", { skip: skipData }, () => {
  it("name the GoEmotions train rows, and the held-out ones, that trainingRows selects", () => {
    for (const id of SENTIMENT_EMBEDDINGS) {
      const m = loadSentimentModel(id);
      const p = m.provenance;
      const sample = p.trainSample === "all kept rows" ? undefined : Number(p.trainRows);
      const rows = trainingRows(sample);
      assert.equal(rows.rows.length, p.trainRows, id);
      assert.equal(idsDigest(rows.rows.map((r) => r.id)), p.trainIdsSha256, id);
      assert.equal(idsDigest(rows.held.map((i) => rows.rows[i]!.id)), p.heldOutIdsSha256, id);
    }
  });
});
