/**
 * Builds a topic model from posts: cluster their unit embeddings with spherical k-means (fitted
 * on a deterministic sample of at most `fitSample` posts to bound the cost, then every post is
 * assigned to its nearest centroid), label each cluster with c-TF-IDF keywords over title and
 * body terms (two of them written together as one phrase, phrases.ts), and carry topic ids over
 * from the previous model where clusters persist.
 */
import { classKeywords, LABEL_WORDS } from "./ctfidf.js";
import { chooseK, sphericalKMeans } from "./kmeans.js";
import { MERGE_COSINE, mergeNearDuplicates } from "./merge.js";
import { candidatePhrases, phraseLabel, phraseMatcher, phrasesIn } from "./phrases.js";
import { seededRandom } from "./random.js";
import { postText, terms } from "./terms.js";
import type { TopicModel } from "./topic-model.js";
import { MIN_CORPUS_DOCUMENTS, matchTopicIds, TOPIC_MODEL_FORMAT } from "./topic-model.js";
import { nearest, unit } from "./vectors.js";

/** A post as the builder reads it. */
export interface BuildPost {
  id: string;
  vector: ArrayLike<number>;
  title: string;
  content: string;
}

/** Options of {@link buildTopicModel}. */
export interface BuildOptions {
  /** Clusters k-means finds; default {@link chooseK} of the post count. Near-duplicates are then merged. */
  k?: number;
  /** Centroid cosine at which two clusters merge (merge.ts); default {@link MERGE_COSINE}; above 1 merges none. */
  mergeCosine?: number;
  /** Seed of the k-means++ draw and the fit sample. Default 42. */
  seed?: number;
  /** Most posts k-means is fitted on. Default 20,000. */
  fitSample?: number;
  maxIterations?: number;
  /** Keywords kept per topic. Default 10. */
  keywords?: number;
  /** Term counts kept per topic as its background. Default 300. */
  backgroundTerms?: number;
  previous?: TopicModel;
  /** Build time; default now. */
  now?: Date;
}

/** The model and each input post's topic id, in input order. */
export interface BuildResult {
  model: TopicModel;
  topicIds: string[];
}

function sampleIndexes(n: number, size: number, seed: number): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  if (n <= size) return all;
  const random = seededRandom(seed ^ 0x5eed);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (n - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, size).sort((a, b) => a - b);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round6(v: Float32Array): number[] {
  return Array.from(v, (x) => Math.round(x * 1e6) / 1e6);
}

/**
 * Per cluster, the share of its posts that use at least one of its label words (`labels`). The
 * labels exist only after the first pass, so this tokenises every post again: ~1.5 s over
 * 92,912 posts, against holding ~3 million terms in memory between the passes.
 */
function labelCoverage(
  posts: readonly BuildPost[],
  clusterOf: readonly number[],
  labels: readonly string[][],
  sizes: readonly number[],
): number[] {
  const sets = labels.map((words) => new Set(words));
  const hits = new Array<number>(labels.length).fill(0);
  posts.forEach((p, i) => {
    const c = clusterOf[i]!;
    const words = sets[c]!;
    if (words.size > 0 && terms(postText(p.title, p.content)).some((t) => words.has(t))) hits[c]!++;
  });
  return hits.map((h, c) => (sizes[c]! === 0 ? 0 : Math.round((h / sizes[c]!) * 1e4) / 1e4));
}

/** Per cluster, how many of its posts write each candidate phrase of its keywords (phrases.ts). */
function phraseCounts(
  posts: readonly BuildPost[],
  clusterOf: readonly number[],
  keywords: readonly string[][],
): Map<string, number>[] {
  const matchers = keywords.map((words) => new Map(candidatePhrases(words).map((p) => [p, phraseMatcher(p)])));
  const counts = keywords.map(() => new Map<string, number>());
  posts.forEach((p, i) => {
    const c = clusterOf[i]!;
    if (matchers[c]!.size === 0) return;
    for (const phrase of phrasesIn(postText(p.title, p.content), matchers[c]!)) {
      counts[c]!.set(phrase, (counts[c]!.get(phrase) ?? 0) + 1);
    }
  });
  return counts;
}

/** Clusters and labels `posts`. Throws on an empty input or vectors of unequal length. */
export function buildTopicModel(posts: readonly BuildPost[], opts: BuildOptions = {}): BuildResult {
  if (posts.length === 0) throw new RangeError("cannot build a topic model from zero posts");
  const dims = posts[0]!.vector.length;
  const vectors = posts.map((p) => {
    if (p.vector.length !== dims)
      throw new RangeError(`post ${p.id} has a ${p.vector.length}-dimensional vector, expected ${dims}`);
    return unit(p.vector);
  });
  const seed = opts.seed ?? 42;
  const k = opts.k ?? chooseK(posts.length);
  // k-means sees the posts in id order, so the model is a function of the set of posts, not of
  // the order a store scans them in: LanceDB's scan order changed between rebuilds of the same
  // table (the trends evaluation's topics differed run to run), and Weaviate's cursor goes by UUID.
  const byId = posts.map((_, i) => i).sort((a, b) => compareIds(posts[a]!.id, posts[b]!.id) || a - b);
  const fit = sampleIndexes(posts.length, opts.fitSample ?? 20_000, seed).map((j) => byId[j]!);
  const km = sphericalKMeans(
    fit.map((i) => vectors[i]!),
    { k, seed, ...(opts.maxIterations ? { maxIterations: opts.maxIterations } : {}) },
  );
  // Near-duplicate clusters become one topic before any post is assigned (merge.ts).
  const fitSizes = new Array<number>(km.centroids.length).fill(0);
  for (const a of km.assignments) if (a >= 0) fitSizes[a]!++;
  const { centroids } = mergeNearDuplicates(km.centroids, fitSizes, opts.mergeCosine ?? MERGE_COSINE);
  const clusterOf = vectors.map((v) => nearest(v, centroids).index);

  // Occurrences per cluster are the trending keywords' background; the labels rank by how many
  // of a cluster's posts use a term, so one post repeating a word cannot name a topic (a
  // cluster about websites and links was labelled "href · rel · nsfw" by two spam posts).
  const counts = centroids.map(() => new Map<string, number>());
  const postCounts = centroids.map(() => new Map<string, number>());
  const docFrequency = new Map<string, number>();
  const sizes = new Array<number>(centroids.length).fill(0);
  posts.forEach((p, i) => {
    const c = clusterOf[i]!;
    const all = terms(postText(p.title, p.content));
    for (const t of all) counts[c]!.set(t, (counts[c]!.get(t) ?? 0) + 1);
    for (const t of new Set(all)) {
      postCounts[c]!.set(t, (postCounts[c]!.get(t) ?? 0) + 1);
      docFrequency.set(t, (docFrequency.get(t) ?? 0) + 1);
    }
    sizes[c]!++;
  });
  const keywords = classKeywords({ counts: postCounts, docFrequency }, opts.keywords ?? 10);
  const coverage = labelCoverage(
    posts,
    clusterOf,
    keywords.map((k) => k.slice(0, LABEL_WORDS).map((w) => w.term)),
    sizes,
  );
  const phrases = phraseCounts(
    posts,
    clusterOf,
    keywords.map((k) => k.map((w) => w.term)),
  );
  const { ids, nextId } = matchTopicIds(opts.previous, centroids);
  const backgroundTerms = opts.backgroundTerms ?? 300;
  const model: TopicModel = {
    format: TOPIC_MODEL_FORMAT,
    version: (opts.previous?.version ?? 0) + 1,
    createdAt: (opts.now ?? new Date()).toISOString(),
    dimensions: dims,
    seed,
    nextId,
    topics: centroids.map((c, i) => {
      const words = keywords[i]!.map((w) => w.term);
      const top = [...counts[i]!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, backgroundTerms);
      return {
        id: ids[i]!,
        label: phraseLabel(words, postCounts[i]!, phrases[i]!),
        keywords: words,
        centroid: round6(c),
        size: sizes[i]!,
        terms: top,
        labelCoverage: coverage[i]!,
      };
    }),
    corpus: {
      posts: posts.length,
      documentFrequency: [...docFrequency]
        .filter(([, n]) => n >= MIN_CORPUS_DOCUMENTS)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
    },
  };
  return { model, topicIds: clusterOf.map((c) => ids[c]!) };
}
