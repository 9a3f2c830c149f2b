/**
 * Buying intent: agreement of `lead_type == buying_intent` with the weak, student-made labels of
 * the iPhone X tweets. Only a rough signal: the labels are noisy and the domain (consumer tweets
 * about one phone) is far from forum posts.
 */

import { fmt, table } from "../format.js";
import { loadBuyingIntent } from "../lead-datasets.js";
import { binary, cohenKappa } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import { leadDecisions } from "./lead-run.js";

export const buyingIntentSection: EvalSection = {
  id: "buying-intent",
  title: "Buying intent (weak labels)",
  method:
    "Agreement (Cohen's kappa) of `buying_intent` with the weak yes/no labels of a student project's purchase-intent tweets, \"undefined\" rows left out. The labels are inconsistent and cover one product, so this is a sanity check that the signal fires on purchase talk, not a quality figure.",
  decisions: ["0023-requests-from-cues-and-a-head.md"],
  requires: ["eval/buying_intent_tweets_weak/Annotated4.csv"],
  async run(ctx: EvalContext) {
    const { rows: data, excluded } = loadBuyingIntent();
    ctx.recordData("Buying-intent tweets (weak)", data.length, `${excluded} "undefined"/other labels excluded`);
    const gold = data.map((d) => d.gold);
    const decisions = await leadDecisions(
      "buying-intent",
      data.map((d) => d.text),
    );
    const preds = [
      { name: "lead_type == buying_intent", p: decisions.map((d) => d.leadType === "buying_intent") },
      { name: "any lead type", p: decisions.map((d) => d.leadType !== "") },
      { name: "baseline: every tweet", p: gold.map(() => true) },
    ];
    const kappa = cohenKappa(gold, preds[0]!.p);
    ctx.recordGoal("buying intent: agreement with weak labels (rough signal only)", `kappa ${fmt(kappa)}`, undefined);
    const rows = preds.map(({ name, p }) => {
      const b = binary(gold, p);
      return [name, fmt(b.accuracy), fmt(cohenKappa(gold, p)), fmt(b.precision), fmt(b.recall), fmt(b.f1)];
    });
    return [table(["prediction", "agreement", "Cohen's kappa", "precision", "recall", "F1"], rows), ""].join("\n");
  },
};
