/**
 * `threadsight topics rebuild` as a function: read every post's vector from the index, build a
 * new model (ids carried over from the current one where clusters persist), replace model.json
 * atomically, then re-tag only the posts whose topic changed and recompute the trend rollups. The server keeps answering all the
 * while: it reads the old model until the rename, and trends over partly re-tagged posts are
 * briefly a mix of both models, never an error.
 */

import type { BuildOptions, BuildPost } from "./build.js";
import { buildTopicModel } from "./build.js";
import { loadTopicModel, saveTopicModel } from "./model-file.js";
import type { TopicModel } from "./topic-model.js";
import type { TopicAssignment, TrendStore } from "./trend-store.js";

/** Options of {@link rebuildTopics}. */
export interface RebuildOptions extends Omit<BuildOptions, "previous"> {
  /** model.json path. */
  file: string;
  /** Posts read per batch. Default 1,000. */
  batchSize?: number;
  /**
   * Posts re-tagged per setTopics call. Default 50,000: LanceDB writes each call in one commit
   * (and then rebuilds its id index), so large calls keep a rebuild to a few commits.
   */
  retagBatchSize?: number;
  /** Progress lines (e.g. to stderr). */
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}

/** What a rebuild did. */
export interface RebuildReport {
  model: TopicModel;
  posts: number;
  /** Topics whose id came from the previous model. */
  keptIds: number;
  /** Posts whose topic changed and were re-tagged. */
  retagged: number;
}

/** Rebuilds the topic model from the store; throws when the index holds no posts. */
export async function rebuildTopics(store: TrendStore, opts: RebuildOptions): Promise<RebuildReport> {
  const progress = opts.onProgress ?? (() => {});
  const batchSize = opts.batchSize ?? 1_000;
  const previous = await loadTopicModel(opts.file);
  const posts: BuildPost[] = [];
  const current: string[] = [];
  for await (const batch of store.scanVectors(batchSize, opts.signal)) {
    for (const p of batch) {
      posts.push({ id: p.id, vector: p.vector, title: p.title, content: p.content.slice(0, 2000) });
      current.push(p.topicId);
    }
    if (posts.length % (batchSize * 20) < batch.length) progress(`read ${posts.length} posts`);
  }
  if (posts.length === 0) throw new Error("the index holds no posts; ingest some before building topics");
  progress(`clustering ${posts.length} posts`);
  const build: BuildOptions = {
    ...(opts.k !== undefined ? { k: opts.k } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.fitSample !== undefined ? { fitSample: opts.fitSample } : {}),
    ...(opts.maxIterations !== undefined ? { maxIterations: opts.maxIterations } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(previous ? { previous } : {}),
  };
  const built = buildTopicModel(posts, build);
  const model: TopicModel = { ...built.model, builtFromPosts: posts.length };
  const { topicIds } = built;
  await saveTopicModel(opts.file, model);
  progress(`wrote ${model.topics.length} topics (version ${model.version}) to ${opts.file}`);

  const changed: TopicAssignment[] = [];
  topicIds.forEach((topicId, i) => {
    if (current[i] !== topicId) changed.push({ id: posts[i]!.id, topicId });
  });
  let retagged = 0;
  const retagBatch = opts.retagBatchSize ?? 50_000;
  for (let i = 0; i < changed.length; i += retagBatch) {
    retagged += await store.setTopics(changed.slice(i, i + retagBatch), opts.signal);
    progress(`re-tagged ${retagged} of ${changed.length} posts`);
  }
  // Topic ids moved, so every rollup cell may be wrong: recompute them from the re-tagged posts.
  await store.rebuildRollups(opts.signal);
  progress("rebuilt the per-(topic, day) trend rollups");
  const oldIds = new Set(previous?.topics.map((t) => t.id) ?? []);
  return { model, posts: posts.length, keptIds: model.topics.filter((t) => oldIds.has(t.id)).length, retagged };
}
