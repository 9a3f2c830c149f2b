/**
 * The topic model: centroids of post-embedding clusters with their labels, keywords and term
 * counts. It is a plain JSON document (`<dataDir>/topics/model.json`) so any process (the
 * server, ingest, the CLI) can load it, and a rebuild can replace it atomically.
 */
import { dot, nearest, unit } from "./vectors.js";

/** Format version of model.json; loadTopicModel refuses others. */
export const TOPIC_MODEL_FORMAT = 1;

/** Cosine similarity above which a rebuilt cluster keeps an old topic's id. */
export const STABLE_ID_THRESHOLD = 0.8;

/** One topic. */
export interface Topic {
  /** Stable id ("t" + number); kept across rebuilds while the cluster persists. */
  id: string;
  /** Readable label: its top keywords, two written together as one phrase, joined by " · " (phrases.ts). */
  label: string;
  /** c-TF-IDF keywords, best first. */
  keywords: string[];
  /** Unit-length centroid. */
  centroid: number[];
  /** Posts in the cluster when the model was built. */
  size: number;
  /** The cluster's most frequent terms with counts: the background for trending keywords. */
  terms: [string, number][];
  /**
   * Share (0..1) of the cluster's posts, when the model was built, that use at least one of the
   * label's words. Under {@link MIN_LABEL_COVERAGE} the cluster has no common theme (see
   * {@link hasTheme}). Missing in models built by earlier versions.
   */
  labelCoverage?: number;
}

/**
 * Least share of a topic's posts its label words must reach for it to be a theme. Spherical
 * k-means over sentence embeddings also gathers posts by form rather than subject: short title-only
 * links ("Adam", "Asana", "A better offer letter"), essay headlines, exclamations ("Wow, it is
 * true."). Such a cluster is large, so it ranked high in ListTrends under a label that says
 * nothing of it ("pic · beautiful · drunk"). On the 92,912-post index (200 topics) 6 clusters,
 * 3,968 posts, fell under this share (2.6% to 6.0%: short links, essay headlines, exclamations,
 * "Ask HN" questions on any subject). It is a floor, not a classifier: the next one up (6.6%)
 * gathers articles tagged with their year, "The Abolition of Work (1985)", a form again.
 */
export const MIN_LABEL_COVERAGE = 0.06;

/** False for a catch-all cluster whose label few of its posts bear out; true when unknown (older models). */
export function hasTheme(topic: Pick<Topic, "labelCoverage">): boolean {
  return topic.labelCoverage === undefined || topic.labelCoverage >= MIN_LABEL_COVERAGE;
}

/** The whole model as stored. */
export interface TopicModel {
  format: number;
  /** Increments with every rebuild. */
  version: number;
  /** ISO time of the build. */
  createdAt: string;
  dimensions: number;
  seed: number;
  /** Next numeric id to hand out. */
  nextId: number;
  topics: Topic[];
  /**
   * Posts in the index when the model was built: the auto-build (auto-build.ts) refreshes the
   * model once the index has grown by a set share past this. Missing in older models, where the
   * corpus term counts' post count stands in.
   */
  builtFromPosts?: number;
  /**
   * How many of the posts the model was built from use each term (terms used by at least
   * {@link MIN_CORPUS_DOCUMENTS} posts): trending keywords weigh a term's rise by its rarity, so an
   * equal rise of "discount" outranks one of "mean". Missing in models built by earlier
   * versions, whose keywords rank by the rise alone until the next `threadsight topics rebuild`.
   */
  corpus?: CorpusTerms;
}

/** Document frequencies over the posts a model was built from. */
export interface CorpusTerms {
  posts: number;
  /** [term, posts using it], most used first. */
  documentFrequency: [string, number][];
}

/** Fewest posts a term is used by to be listed in {@link CorpusTerms}: rarer terms all count as this rare. */
export const MIN_CORPUS_DOCUMENTS = 3;

/** The id of the topic nearest to `vector` (cosine), or "" when the model has no topics. */
export function assignTopic(model: TopicModel, vector: ArrayLike<number>): string {
  if (model.topics.length === 0) return "";
  if (vector.length !== model.dimensions) {
    throw new RangeError(`the topic model expects ${model.dimensions}-dimensional vectors, got ${vector.length}`);
  }
  const { index } = nearest(unit(vector), centroidsOf(model));
  return model.topics[index]!.id;
}

const centroidCache = new WeakMap<TopicModel, Float32Array[]>();

/** The model's centroids as typed arrays (cached per model object). */
export function centroidsOf(model: TopicModel): Float32Array[] {
  let c = centroidCache.get(model);
  if (!c) {
    c = model.topics.map((t) => Float32Array.from(t.centroid));
    centroidCache.set(model, c);
  }
  return c;
}

/**
 * Carries ids over from `previous` to new clusters: pairs (old, new) are taken greedily by
 * descending cosine similarity of their centroids, each side at most once, while the similarity
 * is at least `threshold`. Unmatched new clusters get fresh ids from `nextId`.
 * Returns the ids in the order of `centroids` and the next free number.
 */
export function matchTopicIds(
  previous: TopicModel | undefined,
  centroids: readonly Float32Array[],
  threshold = STABLE_ID_THRESHOLD,
): { ids: string[]; nextId: number } {
  const ids: (string | undefined)[] = centroids.map(() => undefined);
  let nextId = previous?.nextId ?? 1;
  if (previous && previous.topics.length > 0 && previous.dimensions === (centroids[0]?.length ?? previous.dimensions)) {
    const old = centroidsOf(previous);
    const pairs: { o: number; c: number; s: number }[] = [];
    for (let o = 0; o < old.length; o++) {
      for (let c = 0; c < centroids.length; c++) {
        const s = dot(old[o]!, centroids[c]!);
        if (s >= threshold) pairs.push({ o, c, s });
      }
    }
    pairs.sort((a, b) => b.s - a.s || a.o - b.o || a.c - b.c);
    const usedOld = new Set<number>();
    for (const { o, c } of pairs) {
      if (usedOld.has(o) || ids[c] !== undefined) continue;
      usedOld.add(o);
      ids[c] = previous.topics[o]!.id;
    }
  }
  return { ids: ids.map((id) => id ?? `t${nextId++}`), nextId };
}

/** Checks the shape of a parsed model.json; throws naming the first problem. */
export function checkTopicModel(value: unknown, source: string): TopicModel {
  const m = value as Partial<TopicModel>;
  const fail = (what: string): never => {
    throw new Error(`${source} is not a topic model: ${what}; run \`threadsight topics rebuild\``);
  };
  if (typeof m !== "object" || m === null) fail("not a JSON object");
  if (m.format !== TOPIC_MODEL_FORMAT) fail(`format ${String(m.format)}, expected ${TOPIC_MODEL_FORMAT}`);
  if (!Number.isInteger(m.dimensions) || !Array.isArray(m.topics)) fail("dimensions or topics missing");
  for (const t of m.topics!) {
    if (typeof t.id !== "string" || !Array.isArray(t.centroid) || t.centroid.length !== m.dimensions)
      fail(`topic ${String(t.id)} is malformed`);
  }
  if (m.builtFromPosts !== undefined && !(Number.isInteger(m.builtFromPosts) && m.builtFromPosts >= 0))
    fail("builtFromPosts is not a whole number");
  if (m.corpus !== undefined) {
    const c = m.corpus as Partial<CorpusTerms> | null;
    const wellFormed =
      typeof c === "object" &&
      c !== null &&
      Number.isInteger(c.posts) &&
      Array.isArray(c.documentFrequency) &&
      c.documentFrequency.every((e) => Array.isArray(e) && typeof e[0] === "string" && Number.isInteger(e[1]));
    if (!wellFormed) fail("corpus term counts are malformed");
  }
  return m as TopicModel;
}
