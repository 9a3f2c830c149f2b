/**
 * The topic re-tag section of docs/BENCHMARKS.md. test/bench/retag.ts is run by hand on a scratch
 * copy of a data directory (it rewrites topics), not by `npm run bench`, so it stores no results
 * and the report only says how to run it; its measured figures are in decision 0009.
 */
export const RETAG_TEXT = [
  "Method: test/bench/retag.ts moves every post of a scratch copy of a data directory to another topic through",
  "LanceDbTrendStore.setTopics in the batches `threadsight topics rebuild` uses, while a second connection runs a hybrid",
  "search every 100 ms. It is run by hand (it rewrites topics) and stores nothing, so this report holds no figures of it:",
  "they, with their machine and date, and how the goal was reached are in",
  "[decision 0009](decisions/0009-trends-read-from-rollups.md).",
  "Goal: searches keep their usual latency while a rebuild re-tags.",
];
