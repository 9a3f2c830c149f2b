/**
 * The real sentence encoder and the enricher `threadsight ingest` uses, started once for a test
 * file in its own temporary directory (no topic model there, so topics stay "").
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import type { UseEmbedder } from "../../src/enrich/use-embedder.js";
import { startUseEmbedder } from "../../src/enrich/use-embedder.js";
import type { IngestEnricher } from "../../src/ingest/ingest-enricher.js";
import { createIngestEnricher } from "../../src/ingest/ingest-enricher.js";

/** Filled by the file's `before` hook; the directory exists at once. */
export interface EncoderFixture {
  dir: string;
  embedder: UseEmbedder;
  enricher: IngestEnricher;
}

/**
 * Registers before/after hooks that start and stop the encoder and enricher; `started` gets them
 * inside the same hook (node:test may run a file's top-level hooks concurrently).
 */
export function encoderFixture(prefix: string, started: (fixture: EncoderFixture) => void): EncoderFixture {
  const fixture = { dir: mkdtempSync(path.join(tmpdir(), prefix)) } as EncoderFixture;
  before(async () => {
    fixture.embedder = await startUseEmbedder(2);
    fixture.enricher = await createIngestEnricher(path.join(fixture.dir, "no-topics"), fixture.embedder);
    started(fixture);
  });
  after(async () => {
    await fixture.enricher?.close();
    await fixture.embedder?.close();
    rmSync(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
