/**
 * The topic re-tag section of docs/BENCHMARKS.md. test/bench/retag.ts is run by hand on a scratch
 * copy of a data directory (it rewrites topics), not by `npm run bench`, so its figures are kept
 * here as measured, with the run's date, data and load.
 */
export const RETAG_TEXT = [
  "Method: test/bench/retag.ts moves every post of a scratch copy of a data directory to another topic through",
  "LanceDbTrendStore.setTopics in the batches `threadsight topics rebuild` uses, while a second connection runs a hybrid",
  "search every 100 ms; run by hand (it rewrites topics), so its figures are kept here as measured.",
  "Goal: searches keep their usual latency while a rebuild re-tags. How it was reached:",
  "[decision 0009](decisions/0009-trends-read-from-rollups.md).",
  "",
  "| re-tag write | posts | re-tag s | close() s | search p50 before, ms | search p50 during the re-tag, ms | after, ms | machine | date (UTC) |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  "| update() per topic (before) | 62,888 | 159.8 | 20.1 | 18.4 | 3,469 (55 searches) | 33.7 | not recorded, 2 cores | 2026-11-23 |",
  "| mergeInsert of (id, topic_id) (now) | 62,888 | 0.6 | 0.0 | 25.0 | 54.7 (3 searches) | 20.7 | not recorded, 2 cores | 2026-11-23 |",
];
