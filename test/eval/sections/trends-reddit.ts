/**
 * Trending topics of the reddit top-2013 corpus per calendar quarter (the quarterly
 * table), as its own section: reddit alone is embedded and clustered, so the run fits in a
 * session on this machine and the table is not mixed with Hacker News topics. 60 topics over
 * 61 subreddits, k-means fitted on a 12,000-post sample (every post is then assigned).
 */
import type { EvalSection } from "../section.js";
import { REDDIT_FILE, runTrendsEvaluation } from "../trends.js";

export const trendsRedditSection: EvalSection = {
  id: "trends-reddit",
  title: "Trending topics: reddit top 2013 by quarter",
  method:
    "The reddit corpus clustered into topics (spherical k-means over the ingest's vectors); each quarter lists its top topics by trend_score with the keywords most over-represented against the previous quarter. There are no labels: the tables are for reading.",
  decisions: ["0008-topics-people-recognise.md", "0009-trends-read-from-rollups.md"],
  requires: [REDDIT_FILE],
  run: (ctx) => runTrendsEvaluation(ctx, { hackernews: false, reddit: true, k: 60, fitSample: 12_000 }),
};
