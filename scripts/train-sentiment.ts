/**
 * Trains the sentiment models committed as src/enrich/sentiment/model-<embedding model>.json, one
 * per bundled encoder: a class-balanced logistic regression over the encoder's vector plus the
 * lexicon features of src/enrich/sentiment/features.ts, its L2 penalty and the lexicon features'
 * scale chosen on a held-out fifth of GoEmotions train (test/eval/sentiment-training.ts holds the
 * recipe and the data rules).
 * Re-running it writes the same files.
 *
 * Run: nice -n 10 node --import tsx scripts/train-sentiment.ts [--encoder use-lite|all-minilm-l6-v2]
 *        [--sample N]   (a seeded stratified draw of N training rows; embeddings are cached under /tmp)
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { LOCAL_ENCODERS, type LocalEncoderName } from "../src/config.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { trainSentimentFile } from "../test/eval/sentiment-training.js";

const { values } = parseArgs({
  options: { encoder: { type: "string", multiple: true }, sample: { type: "string" }, out: { type: "string" } },
});
const encoders = (values.encoder ?? [...LOCAL_ENCODERS]) as LocalEncoderName[];
for (const e of encoders) {
  if (!LOCAL_ENCODERS.includes(e)) throw new Error(`--encoder must be one of ${LOCAL_ENCODERS.join(", ")}, got ${e}`);
}
const sample = values.sample === undefined ? undefined : Number(values.sample);
if (sample !== undefined && !(Number.isInteger(sample) && sample > 0))
  throw new Error(`--sample must be a positive whole number, got ${values.sample}`);

for (const encoder of encoders) {
  const file = await trainSentimentFile(encoder, { sample, log: (line) => console.log(line) });
  const out = path.join(
    values.out ?? path.join(PACKAGE_ROOT, "src/enrich/sentiment"),
    `model-${file.embeddingModel}.json`,
  );
  writeFileSync(out, `${JSON.stringify(file)}\n`);
  console.log(`wrote ${out}: l2 ${file.hyperparameters.l2}, GoEmotions dev macro-F1 ${file.devMacroF1}`);
}
