/**
 * Loaders for the labelled lead-related sets: SemEval-2019 Task 9A suggestions (evaluation only,
 * CC BY-NC-SA), the complaints tweets (Preotiuc-Pietro et al. 2019) and the weakly labelled
 * buying-intent tweets. Nothing here is used for training.
 */
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { dataPath } from "./shared-data.js";

/** One text with a binary gold label. */
export interface BinaryText {
  id: string;
  text: string;
  gold: boolean;
}

function rows(file: string, encoding: BufferEncoding = "utf8"): string[][] {
  return parse(readFileSync(dataPath(file), encoding), {
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
  }) as string[][];
}

/** SemEval-2019 Task 9A: id, sentence, label (1 = suggestion). `split` "evaluation" or "trial". */
export function loadSuggestions(split: "evaluation" | "trial"): BinaryText[] {
  const file =
    split === "evaluation"
      ? "eval/solution_request_suggestion_mining_semeval2019/SubtaskA_EvaluationData_labeled.csv"
      : "eval/solution_request_suggestion_mining_semeval2019/SubtaskA_Trial_Test_Labeled.csv";
  return rows(file)
    .filter((r) => r.length >= 3 && (r[2] === "0" || r[2] === "1"))
    .map((r) => ({ id: r[0]!, text: r[1]!, gold: r[2] === "1" }));
}

/** Complaints tweets: tweet_id, text, complaint (1/0), domain; no header. */
export function loadComplaints(): (BinaryText & { domain: string })[] {
  return rows("eval/painpoint_complaints_twitter/complaints-data.csv")
    .filter((r) => r.length >= 4 && (r[2] === "0" || r[2] === "1"))
    .map((r) => ({ id: r[0]!, text: r[1]!, gold: r[2] === "1", domain: r[3]! }));
}

/**
 * Buying-intent tweets with student labels, normalised: yes / PI -> true, no / No PI -> false,
 * "undefined" and anything else excluded (returned as a count).
 */
export function loadBuyingIntent(): { rows: BinaryText[]; excluded: number } {
  const out: BinaryText[] = [];
  let excluded = 0;
  const records = parse(readFileSync(dataPath("eval/buying_intent_tweets_weak/Annotated4.csv"), "utf8"), {
    columns: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
  }) as Record<string, string>[];
  records.forEach((r, i) => {
    const label = (r.class ?? "").trim().toLowerCase();
    const text = r.text ?? "";
    if (label === "yes" || label === "pi") out.push({ id: String(i), text, gold: true });
    else if (label === "no" || label === "no pi") out.push({ id: String(i), text, gold: false });
    else excluded++;
  });
  return { rows: out, excluded };
}
