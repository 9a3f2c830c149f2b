/** The INDEXING variable of the ingest benchmarks, checked. */
import type { IndexingMode } from "../../src/index/open-index.js";

const MODES: readonly IndexingMode[] = ["auto", "live", "deferred"];

export function indexingMode(raw: string): IndexingMode {
  if (!(MODES as readonly string[]).includes(raw)) throw new Error(`INDEXING must be one of ${MODES.join(", ")}, got "${raw}"`);
  return raw as IndexingMode;
}
