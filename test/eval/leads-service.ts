/**
 * FindLeads as the service runs it, for the leads precision evaluation: a fresh LanceDB index
 * filled through ingest's own write path (prepareRows then writeRows: embedding, sentiment and
 * lead enrichment, upsert), then LeadsCore with the service's configuration. Vectors come from
 * the evaluation's embedding cache (the same ONNX sessions the service's workers run), so a
 * second run pays for no encoder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LocalEncoderName } from "../../src/config.js";
import { loadConfig } from "../../src/config.js";
import { leadQuerySubject } from "../../src/core/lead-query.js";
import { LeadsCore, type LeadsParams } from "../../src/core/leads.js";
import { postEmbeddingText } from "../../src/enrich/embed-text.js";
import type { Embedder } from "../../src/enrich/embedder.js";
import { createPostEnricher } from "../../src/enrich/post-enricher.js";
import { LanceDbIndex } from "../../src/index/lancedb/lancedb-index.js";
import type { Enricher } from "../../src/ingest/enricher.js";
import { type PostWriteDeps, prepareRows, writeRows } from "../../src/ingest/pipeline.js";
import type { IndexedPost, Post } from "../../src/model/post.js";
import { ENCODER_MODELS, embedCached } from "./embedding-cache.js";

/** Posts per write, as an ingest batch. */
const BATCH = 256;

/** One query's answer and the query vector it was searched with. */
export interface LeadsAnswer {
  ids: string[];
  subject: string;
  vector: Float32Array;
}

/** The indexed rows (as ingest wrote them) and each query's FindLeads answer, in query order. */
export interface LeadsRun {
  rows: Map<string, IndexedPost>;
  answers: LeadsAnswer[];
  model: string;
}

/** An embedder that answers from vectors computed beforehand, and fails on any other text. */
function cachedEmbedder(model: string, dimensions: number, byText: ReadonlyMap<string, Float32Array>): Embedder {
  return {
    model,
    dimensions,
    embed: async (texts) =>
      texts.map((t) => {
        const v = byText.get(t);
        if (v === undefined) throw new Error(`no cached vector for ${JSON.stringify(t.slice(0, 80))}`);
        return v;
      }),
    close: async () => {},
  };
}

/**
 * Indexes `posts` with `encoder` and asks FindLeads each query with `params` (limit, min_score)
 * through the service core. Sentiment and lead enrichment read USE-lite vectors whichever
 * encoder fills the index, as the ingest enricher does (src/ingest/ingest-enricher.ts); the
 * topic stays "" as it does before a topic model is built.
 */
export async function leadsAnswers(
  posts: readonly Post[],
  queries: readonly string[],
  encoder: LocalEncoderName,
  params: Omit<LeadsParams, "query">,
): Promise<LeadsRun> {
  const { model, dimensions } = ENCODER_MODELS[encoder];
  const texts = posts.map(postEmbeddingText);
  const vectors = await embedCached("leads-precision posts", texts, encoder);
  const useLite = encoder === "use-lite" ? vectors : await embedCached("leads-precision posts", texts, "use-lite");
  const subjects = queries.map(leadQuerySubject);
  const queryVectors = await embedCached("leads-precision queries", subjects, encoder);
  const byText = new Map<string, Float32Array>();
  texts.forEach((t, i) => byText.set(t, vectors[i]!));
  subjects.forEach((s, i) => byText.set(s, queryVectors[i]!));
  const useById = new Map(posts.map((p, i): [string, Float32Array] => [p.id, useLite[i]!]));
  const enrichPosts = createPostEnricher();
  const enricher: Enricher = {
    enrich: (batch) =>
      enrichPosts.enrich(
        batch,
        batch.map((p) => useById.get(p.id)!),
      ),
  };
  const embedder = cachedEmbedder(model, dimensions, byText);
  const config = loadConfig({});
  const dir = mkdtempSync(path.join(os.tmpdir(), "threadsight-eval-leads-precision-"));
  const index = new LanceDbIndex({ dir: LanceDbIndex.dirFor(dir), fusion: config.hybridFusion });
  try {
    await index.open(model, dimensions);
    const deps: PostWriteDeps = { index, embedder, enricher };
    const rows = new Map<string, IndexedPost>();
    for (let i = 0; i < posts.length; i += BATCH) {
      const prepared = await prepareRows(posts.slice(i, i + BATCH), deps, undefined);
      const res = await writeRows(prepared, deps);
      if (res.failed.length > 0)
        throw new Error(
          `index refused ${res.failed.length} posts, e.g. ${res.failed[0]!.id}: ${res.failed[0]!.reason}`,
        );
      for (const r of prepared) rows.set(r.id, r);
    }
    // Fold every row into the full-text and vector indexes, as the end of an ingest does.
    await index.optimize();
    const n = await index.count();
    if (n !== posts.length) throw new Error(`index holds ${n} posts, expected ${posts.length}`);
    const core = new LeadsCore({
      index,
      embedder,
      hybridAlpha: config.hybridAlpha,
      shortQueryAlpha: config.shortQueryAlpha,
    });
    const answers: LeadsAnswer[] = [];
    for (const [i, query] of queries.entries()) {
      const leads = await core.find({ ...params, query }, new AbortController().signal);
      answers.push({ ids: leads.map((l) => l.post.id), subject: subjects[i]!, vector: queryVectors[i]! });
    }
    return { rows, answers, model };
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
