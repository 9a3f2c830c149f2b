/**
 * Keyset scan pages read through a window of `created` times. A page sorted by (created, id)
 * after a cursor costs the engine every matching row after the cursor (it sorts them to keep the
 * first `limit`), so a whole pass grew with the square of the posts. Bounding each page's query
 * to `created < before` makes it cost the rows in the window instead; the window's width is
 * learnt from the previous page of the same filter. A window holding `limit` posts after the
 * cursor holds exactly the page (every post outside it is later), so a short answer only means
 * the window was too narrow: it widens a few times, then the engine is asked, with only the sort
 * keys read, for the `created` of the page's last post, and the page is read up to it.
 */

/** How windows grow and how many filters' widths are remembered. */
export const SCAN_WINDOW = Object.freeze({
  /** Wider windows tried after the remembered one before asking for the page's last key. */
  widenings: 3,
  /** Each widening multiplies the width by this. */
  factor: 8,
  /** Filters whose window width is remembered (least recently used forgotten first). */
  remembered: 64,
});

/** How one page is read from an engine. */
export interface WindowReads<T extends { created: number }> {
  /** The page after the cursor among posts with `created < before` (all when absent), sorted, at most `limit`. */
  read(before: number | undefined): Promise<T[]>;
  /**
   * The `created` of the `limit`-th post after the cursor (of the last one when fewer match), reading only the sort keys; undefined when none match.
   */
  lastCreated(): Promise<number | undefined>;
}

/** Window widths per filter, for one index. */
export class ScanWindows {
  private readonly widths = new Map<string, number>();

  /**
   * One page of `limit` posts after a cursor at `from` (its `created`; undefined for a first
   * page), for the filter keyed `key`.
   */
  async page<T extends { created: number }>(
    key: string,
    from: number | undefined,
    limit: number,
    reads: WindowReads<T>,
  ): Promise<T[]> {
    let width = from === undefined ? undefined : this.widths.get(key);
    for (let i = 0; width !== undefined && from !== undefined && i <= SCAN_WINDOW.widenings; i++) {
      const page = await reads.read(from + width);
      if (page.length === limit) return this.learnt(key, page);
      width *= SCAN_WINDOW.factor;
    }
    const last = await reads.lastCreated();
    if (last === undefined) return [];
    const page = await reads.read(last + 1);
    return page.length === limit ? this.learnt(key, page) : page;
  }

  /** Remembers twice the span the page covered, so the next page's window most likely holds it. */
  private learnt<T extends { created: number }>(key: string, page: T[]): T[] {
    const span = page[page.length - 1]!.created - page[0]!.created;
    this.widths.delete(key);
    this.widths.set(key, Math.max(1, 2 * span + 1));
    if (this.widths.size > SCAN_WINDOW.remembered) this.widths.delete(this.widths.keys().next().value!);
    return page;
  }
}
