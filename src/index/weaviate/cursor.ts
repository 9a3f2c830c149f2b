/**
 * A full pass over a Weaviate collection, one page of objects per request, paged by the
 * server's `after` cursor (uuid order). It replaces the client's `collection.iterator()`:
 * weaviate-client 3.12.1's iterator asks for 100 objects after the last uuid on every `next()`,
 * yields the first and drops the other 99, so a pass over N objects made N requests, which made a
 * rollup rebuild over a large collection take many minutes.
 */
import type { Collection, WeaviateObject } from "weaviate-client";
import { checkAborted, raceAbort } from "../abort.js";

/** Objects per request unless told: one page of small properties is well under 1 MB. */
export const SCAN_PAGE = 1_000;

/** What to read of each object. */
export interface ScanOptions {
  returnProperties: string[];
  includeVector?: boolean;
  /** Objects per request (at most the server's QUERY_MAXIMUM_RESULTS). Default {@link SCAN_PAGE}. */
  pageSize?: number;
}

/** Yields every object of `collection` page by page; the caller maps engine errors. */
export async function* scanPages(
  collection: Collection<undefined, string, undefined>,
  opts: ScanOptions,
  signal?: AbortSignal,
): AsyncIterable<WeaviateObject<undefined, undefined>[]> {
  const limit = opts.pageSize ?? SCAN_PAGE;
  let after: string | undefined;
  for (;;) {
    checkAborted(signal);
    const res = await raceAbort(
      collection.query.fetchObjects({
        limit,
        returnProperties: opts.returnProperties as never,
        ...(opts.includeVector ? { includeVector: true } : {}),
        ...(after === undefined ? {} : { after }),
      }),
      signal,
    );
    if (res.objects.length === 0) return;
    yield res.objects;
    // A short page is the last one; asking again would only confirm it.
    if (res.objects.length < limit) return;
    after = res.objects[res.objects.length - 1]!.uuid;
  }
}
