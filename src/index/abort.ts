/**
 * Abort handling shared by the adapters. Neither engine client accepts an AbortSignal for every
 * call, so a call is raced with the signal: the caller gets control back at once. Weaviate's gRPC
 * call is also cancelled (weaviate/connect.ts); LanceDB's native query runs to its end. Either
 * engine may finish work it had started (a write that completes after an abort stays).
 */

/** The rejection value for an aborted call: the signal's reason, else a DOMException AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/** Rejects right away when the signal has already fired. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** Settles with `work`, or rejects with the abort reason if `signal` fires first. */
export async function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    throw abortReason(signal);
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
    work.catch(() => {});
  }
}

/** True for the rejection produced by an aborted signal (so adapters do not rewrap it). */
export function isAbortError(err: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted && err === signal.reason) return true;
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
