/**
 * "Build or refresh the topic model if needed", the step every command that writes posts
 * (`threadsight ingest`, `threadsight sync`) runs after its writes, so a fresh index gets topics
 * without a manual `threadsight topics rebuild`. The decision ({@link topicModelNeed}) is pure;
 * {@link ensureTopicModel} opens the trend store only when a build is due.
 */
import { loadTopicModel } from "./model-file.js";
import { rebuildTopics } from "./rebuild.js";
import type { TopicModel } from "./topic-model.js";
import type { TrendStore } from "./trend-store.js";

/**
 * Fewest posts an automatic build clusters. The clustering picks at least 20 topics, so this is
 * ten posts per topic on average: below it most topics would be a handful of posts whose label
 * says nothing. `threadsight topics rebuild` still builds from fewer when asked.
 */
export const AUTO_BUILD_MIN_POSTS = 200;

/**
 * Growth, as a share of the posts the model was built from, that triggers a refresh. Posts
 * written between refreshes are tagged with the nearest existing topic, so the model only misses
 * themes that are new; at +50% a third of the index is newer than the model, enough for such
 * themes to show. Refreshing at a fixed share keeps the total work bounded: the rebuilds over a
 * corpus grown to N posts read at most about 3N posts (N + N/1.5 + N/1.5² + ...), where
 * refreshing after every ingest would read the whole index each time.
 */
export const REFRESH_GROWTH_SHARE = 0.5;

/** What the topic model of an index needs, given how many posts the index holds. */
export type TopicModelNeed =
  | { action: "build" }
  | { action: "refresh"; builtFromPosts: number }
  | { action: "current"; builtFromPosts: number }
  | { action: "too-few"; minPosts: number };

/** Thresholds of the decision; defaults are {@link AUTO_BUILD_MIN_POSTS} and {@link REFRESH_GROWTH_SHARE}. */
export interface AutoBuildPolicy {
  minPosts?: number;
  growthShare?: number;
}

/** Posts a model was built from: its own record, or for older models the corpus counts or the topic sizes. */
export function postsBuiltFrom(model: TopicModel): number {
  return model.builtFromPosts ?? model.corpus?.posts ?? model.topics.reduce((sum, t) => sum + t.size, 0);
}

/** Decides whether to build, refresh or keep the model of an index holding `posts` posts (pure). */
export function topicModelNeed(
  model: TopicModel | undefined,
  posts: number,
  policy: AutoBuildPolicy = {},
): TopicModelNeed {
  const minPosts = policy.minPosts ?? AUTO_BUILD_MIN_POSTS;
  const share = policy.growthShare ?? REFRESH_GROWTH_SHARE;
  if (model === undefined) return posts >= minPosts ? { action: "build" } : { action: "too-few", minPosts };
  const builtFromPosts = postsBuiltFrom(model);
  return posts >= builtFromPosts * (1 + share)
    ? { action: "refresh", builtFromPosts }
    : { action: "current", builtFromPosts };
}

/** Inputs of {@link ensureTopicModel}. */
export interface EnsureTopicModelOptions extends AutoBuildPolicy {
  /** model.json path (topicModelPath(dataDir)). */
  file: string;
  /** Posts the index holds now, after the caller's writes. */
  posts: number;
  /** Opens the trend store; called only when a build is due, and the store is closed after it. */
  openStore: () => Promise<TrendStore>;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
}

/** What {@link ensureTopicModel} did, with one line saying so for the operator. */
export interface EnsureTopicModelOutcome {
  action: "built" | "refreshed" | "current" | "too-few";
  posts: number;
  /** Topics of the model now in place; undefined when there is none. */
  topics?: number;
  message: string;
}

/** Builds the topic model when the index has none (and enough posts), refreshes it when the index has outgrown it. */
export async function ensureTopicModel(opts: EnsureTopicModelOptions): Promise<EnsureTopicModelOutcome> {
  const model = await loadTopicModel(opts.file);
  const need = topicModelNeed(model, opts.posts, opts);
  const share = opts.growthShare ?? REFRESH_GROWTH_SHARE;
  if (need.action === "too-few") {
    return {
      action: "too-few",
      posts: opts.posts,
      message: `no topic model yet: the index holds ${opts.posts} posts, fewer than the ${need.minPosts} an automatic build needs; ListTrends answers TOPICS_NOT_BUILT until more are ingested or \`threadsight topics rebuild\` runs`,
    };
  }
  if (need.action === "current") {
    return {
      action: "current",
      posts: opts.posts,
      topics: model!.topics.length,
      message: `topic model kept: built from ${need.builtFromPosts} posts, refreshed once the index reaches ${Math.ceil(need.builtFromPosts * (1 + share))}`,
    };
  }
  const store = await opts.openStore();
  try {
    const report = await rebuildTopics(store, {
      file: opts.file,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const topics = report.model.topics.length;
    return need.action === "build"
      ? {
          action: "built",
          posts: report.posts,
          topics,
          message: `built a topic model of ${topics} topics from ${report.posts} posts`,
        }
      : {
          action: "refreshed",
          posts: report.posts,
          topics,
          message: `refreshed the topic model (${topics} topics) from ${report.posts} posts: the index grew from ${need.builtFromPosts}, past +${Math.round(share * 100)}%`,
        };
  } finally {
    await store.close();
  }
}
