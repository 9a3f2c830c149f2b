/**
 * Fits the label model (src/enrich/leads/label-model.json) on the labelling functions' votes over
 * every corpus post that is not in the labelled lead set (no label is read for the fit), then
 * prints each voter's firing count and estimated precision, and the label model's own figures on
 * the labelled dev split (the test split is not read).
 *
 * Run: nice -n 10 node --import tsx scripts/fit-label-model.ts
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { leadScores } from "../src/enrich/leads/fit-lead-model.js";
import {
  checkLabelModel,
  compileLabelModel,
  fitLabelModel,
  type LabelFitOptions,
  voterPrecision,
} from "../src/enrich/leads/label-model.js";
import { LEAD_MODEL_CLASSES } from "../src/enrich/leads/lead-classes.js";
import { lfVotes, VOTERS } from "../src/enrich/leads/lf-votes.js";
import { readerFor } from "../src/ingest/formats.js";
import { openInput } from "../src/ingest/open-input.js";
import { PACKAGE_ROOT } from "../src/package-root.js";
import { LABELLED_CORPORA, labelledPosts } from "../test/eval/labelled-posts.js";
import { loadLeadLabels } from "../test/eval/lead-labels.js";
import { dataPath } from "../test/eval/shared-data.js";

const OPTIONS: LabelFitOptions = { iterations: 30, smoothing: 1 };
const f = (x: number): string => x.toFixed(3);

const labels = loadLeadLabels().filter((l) => l.leadType !== "drop");
const labelled = new Set(loadLeadLabels().map((l) => l.id));
const rows: Uint8Array[] = [];
for (const [file, format] of LABELLED_CORPORA) {
  const input = await openInput(dataPath(file));
  for await (const item of readerFor(format)(input.bytes))
    if ("post" in item && !labelled.has(item.post.id)) rows.push(lfVotes(item.post));
}
process.stdout.write(`${rows.length} unlabelled posts, ${VOTERS.length} voters\n`);
const fitted = fitLabelModel(
  rows,
  VOTERS.map((v) => v.votes),
  OPTIONS,
);
const round = (x: number): number => Number(x.toPrecision(6));
const file = checkLabelModel({
  format: "threadsight-label-model-v1",
  voters: VOTERS,
  prior: fitted.prior.map(round),
  rates: fitted.rates.map((r) => r.map(round)),
  provenance: {
    data: "votes over every post of the three corpora outside test/eval/labels/leads.tsv; no label read",
    posts: rows.length,
    fitter: "scripts/fit-label-model.ts (EM, Dawid-Skene latent classes)",
    iterations: OPTIONS.iterations,
    smoothing: OPTIONS.smoothing,
  },
});
const out = path.join(PACKAGE_ROOT, "src", "enrich", "leads", "label-model.json");
writeFileSync(out, `${JSON.stringify(file)}\n`);
process.stdout.write(`prior ${LEAD_MODEL_CLASSES.map((c, i) => `${c} ${f(file.prior[i]!)}`).join(", ")}\n`);
VOTERS.forEach((v, j) => {
  const fires = rows.filter((r) => r[j] === 1).length;
  process.stdout.write(
    `${v.name} -> ${v.votes}: fires ${fires}, estimated precision ${f(voterPrecision(file, j, v.votes))}\n`,
  );
});

// The label model alone on the labelled dev split: its most likely class.
const dev = labels.filter((l) => l.split === "dev");
const posts = await labelledPosts(dev.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
const model = compileLabelModel(file);
const gold = dev.map((l) => (LEAD_MODEL_CLASSES as readonly string[]).indexOf(l.leadType));
const predicted = posts.map((p) => {
  const q = model.posterior(lfVotes(p));
  return q.indexOf(Math.max(...q));
});
const s = leadScores(gold, predicted);
process.stdout.write(
  `label model alone, dev: P ${f(s.precision)} R ${f(s.recall)} F1 ${f(s.f1)} type ${f(s.typeAccuracy)}\nwrote ${path.relative(PACKAGE_ROOT, out)}\n`,
);
