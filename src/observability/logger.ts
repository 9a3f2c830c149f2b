/**
 * The process logger: JSON lines (pino) on stdout. Secrets never reach a log line: the
 * Authorization header and anything named like a key, password or token are redacted wherever
 * they appear in a logged object.
 */

import type { Logger } from "pino";
import pino from "pino";

/** Paths pino replaces with "[redacted]". */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "authorization",
  "*.authorization",
  "key",
  "*.key",
  "password",
  "*.password",
  "token",
  "*.token",
];

/** Creates the process logger at `level`. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, base: { service: "threadsight" }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
  return destination === undefined ? pino(options) : pino(options, destination);
}
