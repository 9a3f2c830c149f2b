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
  requires: [REDDIT_FILE],
  run: (ctx) => runTrendsEvaluation(ctx, { hackernews: false, reddit: true, k: 60, fitSample: 12_000 }),
};
