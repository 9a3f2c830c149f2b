/**
 * The topic re-tag section of docs/BENCHMARKS.md. test/bench/retag.ts is run by hand on a scratch
 * copy of a data directory (it rewrites topics), not by `npm run bench`, so its figures are kept
 * here as measured, with the run's date, data and load.
 */
export const RETAG_TEXT = [
  "test/bench/retag.ts: every post of a scratch copy of a data directory moves to another topic through",
  "LanceDbTrendStore.setTopics in the batches `threadsight topics rebuild` uses (50,000), while a second connection, as",
  "the server holds one, runs a hybrid search every 100 ms (stored post vectors and titles as queries, so only the",
  "index is timed). The re-tag of a rebuild writes only the posts whose topic changed; a first rebuild, or one after",
  "many posts moved, writes nearly all of them, as here. Measured 2026-11-23 ~18:35 UTC, one run each, the same data:",
  "62,888 posts (the Reddit 2013 dump and the Stack Exchange startups questions, ingested with `threadsight ingest`,",
  "177 topics from `threadsight topics rebuild`), load at start 1.25-1.35 / 1.76 / 2.55 (1/5/15 min) on 2 cores.",
  "Before: one update() per topic, which rewrites whole rows, so every re-tagged row left every index (LanceDB",
  "drops the vector index once no indexed row is left) until close() rebuilt them. Now: one mergeInsert of only",
  "(id, topic_id) per batch, which writes the topic column into the fragments that hold the rows, so every index",
  "stays valid; only the id index (LanceDB writes the join column again) is rebuilt after each batch.",
  "",
  "| re-tag write | re-tag s | close() s | search p50 before, ms | search p50 during the re-tag, ms | during close(), ms | after, ms |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  "| update() per topic (before) | 159.8 | 20.1 | 18.4 | 3,469 (max 5,186; 55 searches) | 3,709 (5 searches) | 33.7 |",
  "| mergeInsert of (id, topic_id) (now) | 0.6 | 0.0 | 25.0 | 54.7 (max 268; 3 searches) | none: too short | 20.7 |",
  "",
  "The whole `threadsight topics rebuild` of those posts with a server answering REST SemanticSearch every 5 s (new",
  "queries, so each was embedded): 149 s, 29 searches during it at 28-76 ms; with the update() re-tag, searches during",
  "its re-tag took 4.3-6.2 s each (a busier machine: the test suite was running).",
  "Since 2026-11-24 k-means takes the posts in id order and seeds with greedy k-means++ (src/topics/kmeans.ts): on the",
  "Intel machine, no server running, the rebuild of those posts took 188 s (189 s CPU), and a second rebuild of the",
  "unchanged posts 200 s, keeping all 177 topic ids and re-tagging 0 posts (before, a rebuild's clusters depended on",
  "the order LanceDB scanned the posts in).",
];
