/**
 * The Weaviate collection for posts: its properties, how it is created, and the mapping between
 * Weaviate objects and EnrichedPost. Only `title` and `content` are BM25-searchable; exact-match
 * fields use `field` tokenization so a filter compares whole values. Vectors are ours
 * (self-provided, HNSW, cosine). The index's provenance (embedding model, dimensions, layout) is
 * kept in the collection description as `threadsight-meta:{json}`.
 */

import type { CollectionConfigCreate, PropertyConfigCreate, WeaviateField } from "weaviate-client";
import { configure, generateUuid5 } from "weaviate-client";
import type { EnrichedPost, IndexedPost, LeadType, SentimentLabel } from "../../model/post.js";
import type { Page } from "../search-index.js";
import { LEAD_FIELDS, RESULT_FIELDS } from "../search-index.js";

/** Bumped when the collection layout changes incompatibly. */
export const WEAVIATE_LAYOUT = 2;
const META_PREFIX = "threadsight-meta:";

/** Provenance recorded in the collection description. */
export interface WeaviateMeta {
  embeddingModel: string;
  dimensions: number;
  layout: number;
}

type Prop = PropertyConfigCreate<undefined>;
const stored = (name: string, dataType: "text" | "int" | "number"): Prop => ({
  name,
  dataType,
  indexFilterable: false,
  indexSearchable: false,
  indexRangeFilters: false,
  ...(dataType === "text" ? { tokenization: "field" as const } : {}),
});
const exact = (name: string): Prop => ({
  name,
  dataType: "text",
  tokenization: "field",
  indexFilterable: true,
  indexSearchable: false,
});
const searchable = (name: string): Prop => ({
  name,
  dataType: "text",
  tokenization: "word",
  indexFilterable: false,
  indexSearchable: true,
});

/** Every property of the collection. The post id is `postId`: `id` is reserved by Weaviate. */
export const POST_PROPERTIES: Prop[] = [
  exact("postId"),
  exact("source"),
  stored("nativeId", "text"),
  searchable("title"),
  searchable("content"),
  exact("subforum"),
  // Layout 2 made these filterable (search filters authors, min_upvotes, min_comments).
  exact("author"),
  { name: "upvotes", dataType: "int", indexFilterable: true, indexRangeFilters: true },
  { name: "comments", dataType: "int", indexFilterable: true, indexRangeFilters: true },
  { name: "created", dataType: "date", indexFilterable: true, indexRangeFilters: true },
  stored("url", "text"),
  exact("sentiment"),
  stored("sentimentScore", "number"),
  exact("leadType"),
  { name: "leadScore", dataType: "number", indexFilterable: true, indexRangeFilters: true },
  stored("painPoint", "text"),
  stored("opportunity", "text"),
  stored("industry", "text"),
  stored("targetProduct", "text"),
  exact("topicId"),
];

/** An object's stored vector: the collection's one (default) vector, as a Float32Array; empty when the object came without it. */
export function vectorOf(o: { vectors?: unknown }): Float32Array {
  const vectors = o.vectors as Record<string, number[]> | undefined;
  return Float32Array.from(vectors?.default ?? Object.values(vectors ?? {})[0] ?? []);
}

/** Names of the properties queries return. */
export const RETURN_PROPERTIES = POST_PROPERTIES.map((p) => p.name);

/** A post field's property name (`id` is reserved by Weaviate). */
const propertyOf = (field: string): string => (field === "id" ? "postId" : field);
const RESULT_PROPERTIES = RESULT_FIELDS.map(propertyOf);
const LEAD_PROPERTIES = LEAD_FIELDS.map(propertyOf);

/** The properties a page reads for the `fields` a query asked for (the others come back empty). */
export function propertiesFor(fields: Page["fields"]): string[] {
  return fields === "result" ? RESULT_PROPERTIES : fields === "lead" ? LEAD_PROPERTIES : RETURN_PROPERTIES;
}

/** BM25 fields with the title weighted twice the content. */
export const BM25_PROPERTIES = ["title^2", "content"];

/**
 * Below this many objects matching a filter, a filtered vector search reads every match (exact);
 * above it, it walks the HNSW graph with the filter (ACORN). Weaviate's default is 40,000, which
 * at our ~93k posts sends FindLeads' lead filter (~25k matches) to the exact scan: 17-19 ms of a
 * ~20 ms hybrid. With ACORN from 20,000 matches the hybrid took ~15 ms and its fused top 10 agreed
 * with the exact one 95.8% of the time (40 held-out queries over the benchmark data; see
 * docs/BENCHMARKS.md, FindLeads). At 1M posts such a filter is far above either value, so this
 * makes a mid-sized collection behave as a large one does.
 */
export const DEFAULT_FLAT_SEARCH_CUTOFF = 20_000;

/** Settings of a new collection (flatSearchCutoff also applied to existing ones on open). */
export interface CollectionSettings {
  replicationFactor: number;
  shards: number;
  flatSearchCutoff?: number | undefined;
}

/** The create request for a new posts collection. */
export function collectionDefinition(
  name: string,
  meta: WeaviateMeta,
  settings: CollectionSettings,
): CollectionConfigCreate {
  return {
    name,
    description: describeMeta(meta),
    properties: POST_PROPERTIES,
    vectorizers: configure.vectors.selfProvided({
      vectorIndexConfig: configure.vectorIndex.hnsw({
        distanceMetric: "cosine",
        filterStrategy: "acorn",
        flatSearchCutoff: settings.flatSearchCutoff ?? DEFAULT_FLAT_SEARCH_CUTOFF,
      }),
    }),
    invertedIndex: configure.invertedIndex({ stopwordsPreset: "en", indexTimestamps: false }),
    // With replicas, async replication compares them in the background, so a node that was
    // down catches up on the writes it missed without waiting for a read to repair them.
    replication: configure.replication({
      factor: settings.replicationFactor,
      asyncEnabled: settings.replicationFactor > 1,
    }),
    sharding: configure.sharding({ desiredCount: settings.shards }),
  };
}

/** The description text that records `meta`. */
export function describeMeta(meta: WeaviateMeta): string {
  return `Threadsight forum posts. ${META_PREFIX}${JSON.stringify(meta)}`;
}

/** Parses the provenance out of a description; undefined when it holds none. */
export function parseMeta(description: string | undefined): WeaviateMeta | undefined {
  const at = description?.indexOf(META_PREFIX) ?? -1;
  if (!description || at < 0) return undefined;
  try {
    const m = JSON.parse(description.slice(at + META_PREFIX.length)) as Partial<WeaviateMeta>;
    if (typeof m.embeddingModel !== "string" || typeof m.dimensions !== "number" || typeof m.layout !== "number")
      return undefined;
    return { embeddingModel: m.embeddingModel, dimensions: m.dimensions, layout: m.layout };
  } catch {
    return undefined;
  }
}

/** The object uuid of a post: uuid v5 of its id, so a re-import replaces the same object. */
export function postUuid(id: string): string {
  return generateUuid5(id, "threadsight-post");
}

/** A post's Weaviate properties. */
export function toProperties(p: IndexedPost): Record<string, WeaviateField> {
  return {
    postId: p.id,
    source: p.source,
    nativeId: p.nativeId,
    title: p.title,
    content: p.content,
    subforum: p.subforum,
    author: p.author,
    upvotes: Math.trunc(p.upvotes),
    comments: Math.trunc(p.comments),
    created: new Date(Math.trunc(p.created)),
    url: p.url,
    sentiment: p.sentiment,
    sentimentScore: p.sentimentScore,
    leadType: p.leadType,
    leadScore: p.leadScore,
    painPoint: p.painPoint,
    opportunity: p.opportunity,
    industry: p.industry,
    targetProduct: p.targetProduct,
    topicId: p.topicId,
  };
}

const text = (v: unknown): string => (v === undefined || v === null ? "" : String(v));
const num = (v: unknown): number => (typeof v === "number" ? v : Number(v ?? 0));

/** Weaviate properties back to a post. Dates arrive as Date or RFC 3339 text. */
export function fromProperties(props: Record<string, unknown>): EnrichedPost {
  // Not read (a page of lead fields): 0, as any other unread number.
  const created =
    props.created === undefined
      ? 0
      : props.created instanceof Date
        ? props.created.getTime()
        : Date.parse(text(props.created));
  return {
    id: text(props.postId),
    source: text(props.source),
    nativeId: text(props.nativeId),
    title: text(props.title),
    content: text(props.content),
    subforum: text(props.subforum),
    author: text(props.author),
    upvotes: num(props.upvotes),
    comments: num(props.comments),
    created,
    url: text(props.url),
    sentiment: text(props.sentiment) as SentimentLabel,
    sentimentScore: num(props.sentimentScore),
    leadType: text(props.leadType) as LeadType,
    leadScore: num(props.leadScore),
    painPoint: text(props.painPoint),
    opportunity: text(props.opportunity),
    industry: text(props.industry),
    targetProduct: text(props.targetProduct),
    topicId: text(props.topicId),
  };
}
