/** Epoch milliseconds -> google.protobuf.Timestamp (renders as ISO 8601 UTC in JSON). */

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";

/** The Timestamp for an epoch-ms instant. */
export function timestamp(ms: number): Timestamp {
  return timestampFromMs(ms);
}
