/**
 * Created ranges small enough for Weaviate to search exactly. A vector search whose filter admits
 * fewer objects than the collection's flat-search cutoff compares the query with every admitted
 * vector; a larger one walks the HNSW graph, which is approximate and misses posts that are above
 * a similarity threshold. AggregatePosts with a query splits the filtered posts into such ranges
 * and adds up what each range counts, so its counts are exact at any collection size.
 */

/** A half-open range of `created`, epoch ms: from <= created < to. */
export interface CreatedRange {
  from: number;
  to: number;
}

/** A range with the number of filtered posts it holds. */
export interface CountedRange extends CreatedRange {
  count: number;
}

/**
 * Splits `span` into ranges that each hold at least one and fewer than `cutoff` posts, ascending,
 * with their counts, by halving any range that holds more. `count` says how many of the filtered posts a range
 * holds (an aggregate without a vector, answered from the inverted index); `spanCount`, when the
 * caller already knows it, saves counting `span` again. Throws when `cutoff` or more posts share
 * one millisecond, which no range can split.
 */
export async function flatWindows(
  span: CreatedRange,
  cutoff: number,
  count: (range: CreatedRange) => Promise<number>,
  spanCount?: number,
): Promise<CountedRange[]> {
  const split = async (range: CreatedRange, n: number): Promise<CountedRange[]> => {
    if (n === 0) return [];
    if (n < cutoff) return [{ ...range, count: n }];
    if (range.to - range.from <= 1) {
      throw new RangeError(`${n} posts share created ${range.from}: more than the flat-search cutoff ${cutoff}`);
    }
    const mid = Math.floor((range.from + range.to) / 2);
    const low = { from: range.from, to: mid };
    const high = { from: mid, to: range.to };
    const nLow = await count(low);
    const [a, b] = await Promise.all([split(low, nLow), split(high, n - nLow)]);
    return [...a, ...b];
  };
  return split(span, spanCount ?? (await count(span)));
}

/**
 * The parts of `range` inside each of `windows` (ascending and disjoint), empty ones left out;
 * each part keeps its window's count, a bound on the posts it holds.
 */
export function piecesOf(range: CreatedRange, windows: readonly CountedRange[]): CountedRange[] {
  const pieces: CountedRange[] = [];
  for (const w of windows) {
    const from = Math.max(range.from, w.from);
    const to = Math.min(range.to, w.to);
    if (from < to) pieces.push({ from, to, count: w.count });
  }
  return pieces;
}

/** `work` over every item, at most `lanes` at once; results in the items' order. */
export async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  return out;
}
