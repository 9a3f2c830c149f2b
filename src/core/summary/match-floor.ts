/**
 * The relevance floor of ai_summary: a result "matched" when its fused hybrid relevance (the
 * `relevance` SemanticSearch returns, 0..1) is at least this. The summary counts, groups and
 * quotes only matched results, and says how many there were, so "N posts matched" is a count of
 * posts about the query, not the page size.
 *
 * Chosen on the SemEval-2016 Task 3 subtask B dev split with the evaluation harness (the
 * "ai_summary" section of docs/EVALUATION.md): among the floors it sweeps, the one whose
 * matched results best separate threads judged relevant from the rest (F1 of "matched" against
 * "judged relevant" over our hybrid retrieval's first page); train_part2 is reported beside it.
 */
export const MATCH_FLOOR = 0.65;

/**
 * How many fused candidates SemanticSearch scores against the floor to count the matches: the
 * count is exact below this and "at least" this otherwise. Only the page's posts are read.
 */
export const MATCH_WINDOW = 50;
