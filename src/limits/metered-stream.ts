/**
 * Metering of a server stream, for the limits interceptor. The stream was admitted once (its
 * first call); for an operation charged per block of what it sends (operations.ts
 * STREAMED_UNITS), each message that starts a new block pays one more quota call before it is
 * sent. When the quota has no call left the stream ends there: the client has every message
 * paid for, then RESOURCE_EXHAUSTED (QUOTA_EXCEEDED, with RetryInfo and QuotaFailure) in the
 * trailers. Usage is recorded once, when the stream ends however it ends, for every call it
 * took; a stream that fails through the service's fault before sending anything gets its first
 * call back, as a failed unary call does.
 */
import type { Code, ConnectError } from "@connectrpc/connect";
import type { StreamedUnits } from "./operations.js";

/** What metering a stream needs from the interceptor. */
export interface StreamMetering {
  /** How the operation is charged; undefined: the one admitted call covers the whole stream. */
  units: StreamedUnits | undefined;
  /** Takes one more quota call, or throws LimitExceededError. */
  admitMore(): Promise<void>;
  /** Gives back the admitted call; true when it was given back. */
  release(): Promise<boolean>;
  /** Records `calls` calls of usage. */
  record(calls: number): Promise<void>;
  onReleaseError(err: unknown): void;
  /** The error the client sees for what the stream threw (limit errors with their details). */
  toError(err: unknown): ConnectError;
  /** True when a call that ended with `code` is not charged. */
  isServiceFault(code: Code): boolean;
}

/** `source` with its messages charged as they go; see the module comment. */
export async function* meteredStream<T>(source: AsyncIterable<T>, m: StreamMetering): AsyncGenerator<T> {
  let calls = 1;
  let units = 0;
  let sent = 0;
  try {
    for await (const message of source) {
      if (m.units !== undefined) {
        const n = m.units.unitsOf(message);
        const needed = Math.max(1, Math.ceil((units + n) / m.units.unitsPerCall));
        while (calls < needed) {
          await m.admitMore();
          calls++;
        }
        units += n;
      }
      sent++;
      yield message;
    }
  } catch (err) {
    const ce = m.toError(err);
    if (sent === 0 && calls === 1 && m.isServiceFault(ce.code)) {
      const released = await m.release().catch((e: unknown) => {
        m.onReleaseError(e);
        return false;
      });
      if (released) calls = 0;
    }
    throw ce;
  } finally {
    if (calls > 0) await m.record(calls);
  }
}
