/**
 * The label model of weak supervision: from the labelling functions' votes alone (lf-votes.ts),
 * over posts nobody labelled, it estimates how often each function fires on posts of each class
 * and how common each class is (Dawid and Skene's latent-class model, fitted by EM), and gives any
 * post a probability per class. No npm package fits one (the libraries that do are Python), and
 * the model is a few dozen lines. Fitted by scripts/fit-label-model.ts into label-model.json,
 * whose posterior the lead model reads as features.
 */
import raw from "./label-model.json" with { type: "json" };
import { LEAD_MODEL_CLASSES, type LeadModelClass } from "./lead-classes.js";
import { VOTERS, type Voter } from "./lf-votes.js";

/** label-model.json. */
export interface LabelModelFile {
  format: "threadsight-label-model-v1";
  /** The voters the rates belong to, in vote-row order. */
  voters: Voter[];
  /** P(class), LEAD_MODEL_CLASSES order. */
  prior: number[];
  /** rates[j][c] = P(voter j fires | class c). */
  rates: number[][];
  provenance: Record<string, string | number>;
}

/** Options of {@link fitLabelModel}. */
export interface LabelFitOptions {
  iterations: number;
  /** Pseudo-counts added to each rate's fires and misses (a Beta prior), so rare voters stay finite. */
  smoothing: number;
}

const K = LEAD_MODEL_CLASSES.length;
const CLASS_INDEX = new Map<LeadModelClass, number>(LEAD_MODEL_CLASSES.map((c, i) => [c, i]));

/** The indices of the voters that fired in each row: the rows are sparse. */
function firedOf(rows: readonly Uint8Array[]): Int32Array[] {
  return rows.map((r) => {
    const out: number[] = [];
    for (let j = 0; j < r.length; j++) if (r[j] === 1) out.push(j);
    return Int32Array.from(out);
  });
}

/** Writes P(class | votes) of one post into `out` (the E-step). */
function posteriorInto(
  fired: Int32Array,
  logPrior: Float64Array,
  logMiss: Float64Array[],
  gain: Float64Array[],
  out: Float64Array,
): void {
  let max = -Infinity;
  for (let c = 0; c < K; c++) {
    let s = logPrior[c]! + logMiss[c]![0]!;
    for (const j of fired) s += gain[c]![j]!;
    out[c] = s;
    if (s > max) max = s;
  }
  let z = 0;
  for (let c = 0; c < K; c++) z += out[c] = Math.exp(out[c]! - max);
  for (let c = 0; c < K; c++) out[c]! /= z;
}

/** Log tables of a model: log prior, the summed log(1 - rate) per class, and each voter's log-odds gain. */
function tables(prior: readonly number[], rates: readonly (readonly number[])[]) {
  const logPrior = Float64Array.from(prior, Math.log);
  const logMiss = LEAD_MODEL_CLASSES.map((_, c) => Float64Array.of(rates.reduce((s, r) => s + Math.log(1 - r[c]!), 0)));
  const gain = LEAD_MODEL_CLASSES.map((_, c) => Float64Array.from(rates, (r) => Math.log(r[c]!) - Math.log(1 - r[c]!)));
  return { logPrior, logMiss, gain };
}

/**
 * Fits prior and rates by EM on unlabelled vote rows, started from the voters' own say: each post
 * leans to the classes its fired voters vote for, a post with no vote to none.
 */
export function fitLabelModel(
  rows: readonly Uint8Array[],
  voterClasses: readonly LeadModelClass[],
  o: LabelFitOptions,
): Pick<LabelModelFile, "prior" | "rates"> {
  const fired = firedOf(rows);
  const votes = voterClasses.map((v) => CLASS_INDEX.get(v)!);
  let q = fired.map((f) => {
    const row = new Float64Array(K).fill(0.01);
    if (f.length === 0) row[0] = 1;
    for (const j of f) row[votes[j]!]! += 1;
    const z = row.reduce((a, b) => a + b, 0);
    return row.map((x) => x / z);
  });
  let prior: number[] = [];
  let rates: number[][] = [];
  for (let it = 0; it < o.iterations; it++) {
    const mass = new Float64Array(K);
    const hits = votes.map(() => new Float64Array(K));
    q.forEach((row, i) => {
      for (let c = 0; c < K; c++) mass[c]! += row[c]!;
      for (const j of fired[i]!) for (let c = 0; c < K; c++) hits[j]![c]! += row[c]!;
    });
    prior = [...mass].map((m) => (m + 1) / (rows.length + K));
    rates = hits.map((h) => [...h].map((x, c) => (x + o.smoothing) / (mass[c]! + 2 * o.smoothing)));
    const t = tables(prior, rates);
    q = fired.map((f) => {
      const out = new Float64Array(K);
      posteriorInto(f, t.logPrior, t.logMiss, t.gain, out);
      return out;
    });
  }
  return { prior, rates };
}

/** Checks a parsed label-model.json against today's voters; a stale file is refused naming the field. */
export function checkLabelModel(value: unknown): LabelModelFile {
  const m = value as Partial<LabelModelFile>;
  const fail = (field: string, rule: string): never => {
    throw new Error(`label model: ${field} ${rule}`);
  };
  if (m?.format !== "threadsight-label-model-v1") fail("format", `must be "threadsight-label-model-v1"`);
  const names = VOTERS.map((v) => `${v.name}:${v.votes}`).join();
  if (!Array.isArray(m.voters) || m.voters.map((v) => `${v.name}:${v.votes}`).join() !== names)
    fail("voters", "must list today's labelling functions and tests, in order (refit with scripts/fit-label-model.ts)");
  if (!Array.isArray(m.prior) || m.prior.length !== K) fail("prior", `must hold ${K} probabilities`);
  const prob = (x: unknown): boolean => typeof x === "number" && x > 0 && x < 1;
  if (!m.prior!.every(prob)) fail("prior", "must hold numbers in (0, 1)");
  if (
    !Array.isArray(m.rates) ||
    m.rates.length !== VOTERS.length ||
    !m.rates.every((r) => r.length === K && r.every(prob))
  )
    fail("rates", `must hold ${VOTERS.length} rows of ${K} numbers in (0, 1)`);
  return m as LabelModelFile;
}

/** A label model ready for inference. */
export interface LabelModel {
  readonly file: LabelModelFile;
  /** P(class | votes), LEAD_MODEL_CLASSES order, for one vote row; the returned array is reused. */
  posterior(votes: Uint8Array): Float64Array;
}

/** Compiles a label model file (the committed one unless given). */
export function compileLabelModel(file: LabelModelFile = checkLabelModel(raw)): LabelModel {
  const t = tables(file.prior, file.rates);
  const out = new Float64Array(K);
  return { file, posterior: (votes) => (posteriorInto(firedOf([votes])[0]!, t.logPrior, t.logMiss, t.gain, out), out) };
}

/** P(class = `votes` | voter j fired) under a model: the estimated precision of voter j, which votes `votes`. */
export function voterPrecision(
  file: Pick<LabelModelFile, "prior" | "rates">,
  j: number,
  votes: LeadModelClass,
): number {
  const c = CLASS_INDEX.get(votes)!;
  const joint = file.rates[j]!.map((r, k) => r * file.prior[k]!);
  return joint[c]! / joint.reduce((a, b) => a + b, 0);
}
