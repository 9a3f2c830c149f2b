/**
 * The start-up error for an index whose vectors come from another encoder than the configured
 * one: it names both models, the EMBEDDINGS_MODEL value of each bundled one, and the command
 * that moves the index to the configured model, so a user who switched EMBEDDINGS_MODEL knows
 * both ways out.
 */

/**
 * Model id recorded in an index -> the EMBEDDINGS_MODEL value that selects that bundled encoder
 * (the ids of enrich/use-embedder.ts and enrich/minilm/minilm-files.ts; the index layer does not
 * import the encoders).
 */
const BUNDLED_SETTINGS: Record<string, string> = {
  "use-lite-512": "use-lite",
  "all-minilm-l6-v2-384": "all-minilm-l6-v2",
};

/** `EMBEDDINGS_MODEL=<value>` for a bundled encoder's id, or the id itself for a remote model. */
function setting(modelId: string): string {
  return `EMBEDDINGS_MODEL=${BUNDLED_SETTINGS[modelId] ?? modelId}`;
}

/** The message of an EmbeddingModelMismatchError for `where` ("the index in DIR", "Weaviate collection X"). */
export function mismatchMessage(
  where: string,
  storedModel: string,
  storedDimensions: number,
  configured: { embeddingModel: string; dimensions: number },
): string {
  const target = BUNDLED_SETTINGS[configured.embeddingModel];
  return (
    `${where} holds vectors of embedding model "${storedModel}" (${storedDimensions} dimensions), ` +
    `but the configured encoder is "${configured.embeddingModel}" (${configured.dimensions} dimensions, ${setting(configured.embeddingModel)}). ` +
    `Set ${setting(storedModel)} to use the index as it is, or run ` +
    `\`threadsight reembed${target === undefined ? "" : ` --model ${target}`}\` to re-embed the index in place with the configured encoder`
  );
}
