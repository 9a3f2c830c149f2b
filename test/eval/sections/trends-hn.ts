/**
 * Trending topics of the Hacker News 2015-2016 corpus per calendar month (the monthly
 * table), as its own section: HN alone is clustered, so its topics are not shaped by the much
 * larger reddit corpus and the run fits in a session here. HN rows are titles only (the dump has
 * no body text), so topics are fewer and broader than reddit's: 40 over 20,099 titles.
 */
import type { EvalSection } from "../section.js";
import { HN_FILE, runTrendsEvaluation } from "../trends.js";

export const trendsHnSection: EvalSection = {
  id: "trends-hn",
  title: "Trending topics: Hacker News 2015-2016 by month",
  method:
    "Hacker News titles clustered alone into topics (spherical k-means over the bundled encoder's vectors); each month lists its top topics by trend_score with the keywords most over-represented against the previous month. There are no labels: the tables are for reading.",
  decisions: ["0008-topics-people-recognise.md", "0009-trends-read-from-rollups.md"],
  requires: [HN_FILE],
  run: (ctx) => runTrendsEvaluation(ctx, { hackernews: true, reddit: false, k: 40 }),
};
