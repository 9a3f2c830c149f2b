/**
 * The LanceDB table layout for posts and the mapping between rows and EnrichedPost.
 * Columns are snake_case because LanceDB filters are SQL, where unquoted identifiers fold to
 * lower case. The index's provenance (embedding model, dimensions, layout version) lives in the
 * Arrow schema metadata, so it is written atomically with the table itself.
 */
import { Field, FixedSizeList, Float32, Float64, Int64, Schema, Utf8 } from "apache-arrow";
import type { EnrichedPost, IndexedPost, LeadType, SentimentLabel } from "../../model/post.js";

/** Name of the posts table inside the LanceDB directory. */
export const POSTS_TABLE = "posts";

/** Bumped when the layout changes incompatibly; open() refuses other versions. */
export const LAYOUT_VERSION = "1";

const META_MODEL = "threadsight.embedding_model";
const META_DIMS = "threadsight.dimensions";
const META_LAYOUT = "threadsight.layout";

/** What the schema metadata records. */
export interface LanceMeta {
  embeddingModel: string;
  dimensions: number;
  layout: string;
}

const text = (name: string) => new Field(name, new Utf8(), false);

/**
 * The columns a topic re-tag writes: the key and the topic, typed as in the posts table. A
 * mergeInsert given only these writes the topic column into the fragments that hold the rows.
 */
export const TOPIC_ASSIGNMENT_SCHEMA = new Schema([text("id"), text("topic_id")]);

/** The Arrow schema of the posts table for vectors of `dimensions` floats. */
export function postsSchema(embeddingModel: string, dimensions: number): Schema {
  const int = (name: string) => new Field(name, new Int64(), false);
  const float = (name: string) => new Field(name, new Float64(), false);
  const fields = [
    text("id"),
    text("source"),
    text("native_id"),
    text("title"),
    text("content"),
    text("subforum"),
    text("author"),
    int("upvotes"),
    int("comments"),
    int("created"),
    text("url"),
    text("sentiment"),
    float("sentiment_score"),
    text("lead_type"),
    float("lead_score"),
    text("pain_point"),
    text("opportunity"),
    text("industry"),
    text("target_product"),
    text("topic_id"),
    new Field("vector", new FixedSizeList(dimensions, new Field("item", new Float32(), true)), false),
  ];
  const metadata = new Map([
    [META_MODEL, embeddingModel],
    [META_DIMS, String(dimensions)],
    [META_LAYOUT, LAYOUT_VERSION],
  ]);
  return new Schema(fields, metadata);
}

/** Reads the provenance back from a table's schema; undefined fields when absent. */
export function readMeta(schema: Schema): Partial<LanceMeta> {
  const md = schema.metadata;
  const dims = md.get(META_DIMS);
  return {
    embeddingModel: md.get(META_MODEL),
    dimensions: dims === undefined ? undefined : Number(dims),
    layout: md.get(META_LAYOUT),
  };
}

/** Every column but the vector: what queries return. */
export const POST_COLUMNS = [
  "id",
  "source",
  "native_id",
  "title",
  "content",
  "subforum",
  "author",
  "upvotes",
  "comments",
  "created",
  "url",
  "sentiment",
  "sentiment_score",
  "lead_type",
  "lead_score",
  "pain_point",
  "opportunity",
  "industry",
  "target_product",
  "topic_id",
] as const;

/** A post as a row object, for rowsTable (lancedb/rows.ts) to build the table's Arrow columns from. */
export function toRow(p: IndexedPost): Record<string, unknown> {
  return {
    id: p.id,
    source: p.source,
    native_id: p.nativeId,
    title: p.title,
    content: p.content,
    subforum: p.subforum,
    author: p.author,
    upvotes: BigInt(Math.trunc(p.upvotes)),
    comments: BigInt(Math.trunc(p.comments)),
    created: BigInt(Math.trunc(p.created)),
    url: p.url,
    sentiment: p.sentiment,
    sentiment_score: p.sentimentScore,
    lead_type: p.leadType,
    lead_score: p.leadScore,
    pain_point: p.painPoint,
    opportunity: p.opportunity,
    industry: p.industry,
    target_product: p.targetProduct,
    topic_id: p.topicId,
    // The Float32Array itself: rowsTable copies it into the column whole (no 512-number array
    // per post to allocate, check and convert back).
    vector: p.vector,
  };
}

/** A returned row back to an EnrichedPost (Int64 columns arrive as bigint). */
export function fromRow(r: Record<string, unknown>): EnrichedPost {
  return {
    id: String(r.id),
    source: String(r.source),
    nativeId: String(r.native_id),
    title: String(r.title),
    content: String(r.content),
    subforum: String(r.subforum),
    author: String(r.author),
    upvotes: Number(r.upvotes),
    comments: Number(r.comments),
    created: Number(r.created),
    url: String(r.url),
    sentiment: String(r.sentiment) as SentimentLabel,
    sentimentScore: Number(r.sentiment_score),
    leadType: String(r.lead_type) as LeadType,
    leadScore: Number(r.lead_score),
    painPoint: String(r.pain_point),
    opportunity: String(r.opportunity),
    industry: String(r.industry),
    targetProduct: String(r.target_product),
    topicId: String(r.topic_id),
  };
}
