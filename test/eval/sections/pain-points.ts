/**
 * Pain points: does the classifier extract a pain point from the tweets people labelled as
 * complaints (Preotiuc-Pietro et al., ACL 2019)? Split by tweet id: even ids were a development
 * half whose misses were read while the first rules were written; odd ids were never read and are
 * the headline. Nothing is trained or tuned on either half: the frustration threshold is chosen on
 * posts written by hand for the project (src/enrich/leads/seeds/complaint-dev.tsv).
 */
import { FRUSTRATION_MIN } from "../../../src/enrich/leads/rule-classifier.js";
import type { SeedLine } from "../../../src/enrich/leads/seed-file.js";
import { readSeedFile } from "../../../src/enrich/leads/seed-file.js";
import { vaderScores } from "../../../src/enrich/sentiment/vader.js";
import { fmt, table } from "../format.js";
import { loadComplaints } from "../lead-datasets.js";
import { binary } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import { labelModelClasses, leadDecisions } from "./lead-run.js";

const GOAL_F1 = 0.75;
const HAND_WRITTEN = "src/enrich/leads/seeds/complaint-dev.tsv";

/** The hand-written development lines: label 1 the class, 0 not. */
function handWritten(): SeedLine[] {
  return readSeedFile(HAND_WRITTEN);
}

export const painPointSection: EvalSection = {
  id: "pain-points",
  title: "Pain points (complaints tweets)",
  method:
    "A tweet is detected when the classifier fills `pain_point`. Pain comes from the rules' cues, the sentiment model's tone and a complaint head trained on posts written for the project; the tone threshold is chosen on hand-written dev posts, not on the tweets. The complaints tweets are split by id into a half read while changing the rules and a held-out half that is only reported. The ingest classifier is the lead model, which reads these rules as features; the rule classifier's row is what ingest ran before it.",
  decisions: ["0024-pain-points-from-cues-tone-and-a-head.md", "0021-lead-model.md"],
  requires: ["eval/painpoint_complaints_twitter/complaints-data.csv"],
  async run(ctx: EvalContext) {
    const data = loadComplaints();
    const decisions = await leadDecisions(
      "complaints",
      data.map((d) => d.text),
    );
    const ruleDecisions = await leadDecisions(
      "complaints",
      data.map((d) => d.text),
      { classifier: "rules" },
    );
    const weak = labelModelClasses(data.map((d) => d.text));
    const halves = [
      { name: "test half (odd ids, never read)", keep: (id: string) => BigInt(id) % 2n === 1n },
      { name: "dev half (even ids, misses read)", keep: (id: string) => BigInt(id) % 2n === 0n },
      { name: "all", keep: () => true },
    ];
    const rows: string[][] = [];
    let headline = 0;
    for (const h of halves) {
      const idx = data.map((d, i) => (h.keep(d.id) ? i : -1)).filter((i) => i >= 0);
      const gold = idx.map((i) => data[i]!.gold);
      const painSentence = binary(
        gold,
        idx.map((i) => decisions[i]!.painPoint !== ""),
      );
      const painType = binary(
        gold,
        idx.map((i) => decisions[i]!.leadType === "pain_point"),
      );
      const rulePain = binary(
        gold,
        idx.map((i) => ruleDecisions[i]!.painPoint !== ""),
      );
      const weakPain = binary(
        gold,
        idx.map((i) => weak[i] === "pain_point"),
      );
      const vader = binary(
        gold,
        idx.map((i) => vaderScores(data[i]!.text).compound <= -0.05),
      );
      if (h === halves[0]) headline = painSentence.f1;
      const n = `${idx.length} (${gold.filter(Boolean).length} complaints)`;
      rows.push([
        h.name,
        n,
        "pain_point sentence found",
        fmt(painSentence.precision),
        fmt(painSentence.recall),
        fmt(painSentence.f1),
      ]);
      rows.push([
        h.name,
        n,
        "lead_type == pain_point",
        fmt(painType.precision),
        fmt(painType.recall),
        fmt(painType.f1),
      ]);
      rows.push([
        h.name,
        n,
        "pain_point sentence, rule classifier (before the lead model)",
        fmt(rulePain.precision),
        fmt(rulePain.recall),
        fmt(rulePain.f1),
      ]);
      rows.push([
        h.name,
        n,
        "label model alone: pain_point most likely (votes, no vector)",
        fmt(weakPain.precision),
        fmt(weakPain.recall),
        fmt(weakPain.f1),
      ]);
      rows.push([h.name, n, "baseline: VADER negative", fmt(vader.precision), fmt(vader.recall), fmt(vader.f1)]);
    }
    ctx.recordData("Complaints tweets", data.length, `${data.filter((d) => d.gold).length} complaints`);

    // How FRUSTRATION_MIN was chosen: F1 on the hand-written development posts, per threshold.
    const dev = handWritten();
    const sweep: string[][] = [];
    for (const t of [0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 1.01]) {
      const dec = await leadDecisions(
        "complaint-dev",
        dev.map((d) => d.text),
        { classifier: "rules", rules: { frustrationMin: t } },
      );
      const b = binary(
        dev.map((d) => d.gold),
        dec.map((d) => d.painPoint !== ""),
      );
      sweep.push([
        t > 1 ? "off" : fmt(t, 2),
        fmt(b.precision),
        fmt(b.recall),
        fmt(b.f1),
        t === FRUSTRATION_MIN ? "chosen" : "",
      ]);
    }
    ctx.recordGoal(`pain-point F1 on held-out complaints >= ${GOAL_F1}`, fmt(headline), headline >= GOAL_F1);
    return [
      table(["half", "n", "prediction", "precision", "recall", "F1"], rows),
      "",
      "Threshold on the sentiment model's frustration head (GoEmotions anger/annoyance/disappointment/",
      `disapproval/disgust) above which tone alone marks a pain point, swept on ${dev.length} posts written by hand for`,
      `the project (${dev.filter((d) => d.gold).length} complaints; \`${HAND_WRITTEN}\`), not on the complaints tweets:`,
      "",
      table(["frustration threshold", "precision", "recall", "F1", ""], sweep),
      "",
    ].join("\n");
  },
};
