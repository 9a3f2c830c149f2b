/** The INDEXING variable of the ingest benchmarks, checked. */

import type { IndexingMode } from "../../src/index/open-index.js";
import { INDEXING_MODES } from "../../src/index/open-index.js";

export function indexingMode(raw: string): IndexingMode {
  const mode = INDEXING_MODES.find((m) => m === raw);
  if (mode === undefined) throw new Error(`INDEXING must be one of ${INDEXING_MODES.join(", ")}, got "${raw}"`);
  return mode;
}
