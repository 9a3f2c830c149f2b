/**
 * Pain points: does the classifier extract a pain point from the tweets people labelled as
 * complaints (Preotiuc-Pietro et al., ACL 2019)? Split by tweet id: even ids were a development
 * half whose misses were read while the first rules were written; odd ids were never read and are
 * the headline. Nothing is trained or tuned on either half: the frustration threshold is chosen on
 * posts written by hand for the project (src/enrich/leads/seeds/complaint-dev.tsv).
 */
import { COMPLAINT_ALONE, COMPLAINT_PULL, FRUSTRATION_MIN } from "../../../src/enrich/leads/classifier.js";
import { loadLeadHead } from "../../../src/enrich/leads/heads.js";
import type { SeedLine } from "../../../src/enrich/leads/seed-file.js";
import { readSeedFile } from "../../../src/enrich/leads/seed-file.js";
import { vaderScores } from "../../../src/enrich/sentiment/vader.js";
import { fmt, goal, table } from "../format.js";
import { loadComplaints } from "../lead-datasets.js";
import { binary } from "../metrics.js";
import type { EvalContext, EvalSection } from "../section.js";
import { leadDecisions } from "./lead-run.js";

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
    "A tweet is detected when the classifier fills `pain_point`. Pain comes from the rules' cues, the sentiment model's tone and a complaint head trained on posts written for the project; the tone threshold is chosen on hand-written dev posts, not on the tweets. The complaints tweets are split by id into a half read while changing the rules and a held-out half that is only reported.",
  decisions: ["0024-pain-points-from-cues-tone-and-a-head.md"],
  requires: ["eval/painpoint_complaints_twitter/complaints-data.csv"],
  async run(ctx: EvalContext) {
    const data = loadComplaints();
    const decisions = await leadDecisions(
      "complaints",
      data.map((d) => d.text),
    );
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
        { frustrationMin: t },
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
    const head = loadLeadHead("complaint");
    return [
      "A tweet counts as detected when the classifier fills `pain_point` (the sentence stating the problem);",
      "`lead_type == pain_point` is stricter, since a complaint that also asks something is typed by its ask.",
      "Pain comes from the cues in signals.ts, the sentiment model's tone (P(negative), frustration head) and a",
      `complaint head: logistic regression over the tweet's USE-lite vector, trained by \`scripts/train-lead-heads.ts\` on`,
      `${head.provenance.rows} posts written by hand for the project (\`${String(head.provenance.data)}\`, ${head.provenance.positives} complaints; ${head.provenance.selection}:`,
      `${fmt(Number(head.provenance.crossValidatedF1))}). Found pain moves by ${COMPLAINT_PULL} x (P(complaint) - 0.5), and P(complaint) >= ${COMPLAINT_ALONE} is pain on its own`,
      "(except in a question with no negative word, below);",
      "both constants were chosen on the hand-written development posts named below, not on these tweets.",
      "",
      table(["half", "n", "prediction", "precision", "recall", "F1"], rows),
      "",
      "Threshold on the sentiment model's frustration head (GoEmotions anger/annoyance/disappointment/",
      `disapproval/disgust) above which tone alone marks a pain point, swept on ${dev.length} posts written by hand for`,
      `the project (${dev.filter((d) => d.gold).length} complaints; \`${HAND_WRITTEN}\`), not on the complaints tweets:`,
      "",
      table(["frustration threshold", "precision", "recall", "F1", ""], sweep),
      "",
      `Goal F1 >= ${GOAL_F1} on the held-out half: ${fmt(headline)} -> ${goal(headline >= GOAL_F1)}.`,
      "Reference: the dataset paper's models are trained on these tweets (cross-validated); ours is not:",
      "like every labelled set in ../shared/data except GoEmotions train, the complaints tweets are for",
      "evaluation only, which is why no model is trained on them. Pain points come from the rules, the",
      "sentiment model (GoEmotions train only) and the complaint head (hand-written posts only). An earlier",
      "version chose the frustration threshold on the even half;",
      "it is now chosen on the hand-written posts above. The complaint head alone no longer makes a pain",
      "point of a question with no negative word in it (classifier.ts, `headMayStateAlone`), a rule found by",
      "reading the dev half's false positives (F1 there 0.746 -> 0.752). Complaint phrasings with no",
      'complaint word (waiting, "3 days late", "never again", "fell apart", "painfully slow", "a joke",',
      'being ignored or hung up on, "not heard back", "has yet to arrive", "the worst ... ever", price',
      "increases) were added as cues after reading the dev half's misses, each checked against 30,000 reddit",
      'posts for its neutral uses ("at worst", "worst case", "cracked a smile" are left out): dev F1',
      "0.752 -> 0.767. Runs of the test half during this work: after the sentiment retrain and the",
      "threshold re-choice (F1 0.714), after the solution-request changes (0.718), with the complaint head",
      "(0.748), with that rule (0.749), and with those cues (the figure above: five runs in all, the",
      "goal met by 0.003, which is within what one more rule could move either way); nothing was changed",
      "in response to them. Tried and not adopted (2026-11-25): the same question rule for tone alone (a",
      "frustrated post's most negative sentence not quoted as its pain when it is a question with no",
      "negative word). Over the corpora it moved 211 leads, mostly opinion questions from pain_point to",
      "advice_request, but on the dev half F1 fell 0.767 -> 0.759 (recall 0.840 -> 0.816): complaint tweets",
      'often ask ("why is my order late?"). It was rejected on the dev figure; the test half, scored in',
      "the same run (its sixth), gave 0.733; the figure above is its seventh, with the rule reverted.",
      "Later that day the rules stopped reading quoted speech and retold dialogue (reported-speech.ts);",
      "compared on the predictions before this run, one tweet changed (from pain_point to none), in the",
      "dev half, where it was a false positive; the held-out half's predictions are the same.",
    ].join("\n");
  },
};
