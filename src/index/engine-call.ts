/**
 * The error rule both adapters apply to every engine call: the caller's own mistakes
 * (RangeError), aborts and the index's typed errors pass through; anything else the engine or
 * its client throws becomes IndexUnavailableError with the original as `cause`.
 */
import { checkAborted, isAbortError, raceAbort } from "./abort.js";
import { EmbeddingModelMismatchError, IndexUnavailableError } from "./search-index.js";

/** Runs `fn`, mapping engine failures to IndexUnavailableError (message prefixed by `engine`). */
export async function guardEngine<T>(engine: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (
      isAbortError(err, signal) ||
      err instanceof RangeError ||
      err instanceof IndexUnavailableError ||
      err instanceof EmbeddingModelMismatchError
    )
      throw err;
    throw new IndexUnavailableError(`${engine} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * {@link guardEngine} around `work()` raced with the caller's signal. An already aborted signal
 * rejects before `work` starts, so no stage after a deadline reaches the engine.
 */
export function engineCall<T>(engine: string, work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return guardEngine(
    engine,
    async () => {
      checkAborted(signal);
      return raceAbort(work(), signal);
    },
    signal,
  );
}

/**
 * A liveness probe: true when `check()` resolves truthy, false when it fails; an abort still
 * rejects, so a cancelled health check is not reported as "down".
 */
export async function probe(check: () => Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  checkAborted(signal);
  try {
    return Boolean(await raceAbort(check(), signal));
  } catch (err) {
    if (isAbortError(err, signal)) throw err;
    return false;
  }
}
