/** ScanWindows: each page equals the unbounded keyset page, whatever the gaps between created times. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SCAN_WINDOW, ScanWindows } from "../../src/index/scan-window.js";

interface Row {
  created: number;
  id: string;
}

const order = (a: Row, b: Row): number => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** An engine over `rows`: counts the rows each query had to consider (those in its range). */
function engine(rows: Row[]) {
  const sorted = [...rows].sort(order);
  let considered = 0;
  let calls = 0;
  const after = (cursor: Row | undefined) => sorted.filter((r) => cursor === undefined || order(r, cursor) > 0);
  return {
    reads(cursor: Row | undefined, limit: number) {
      return {
        read: async (before: number | undefined) => {
          calls++;
          const inRange = after(cursor).filter((r) => before === undefined || r.created < before);
          considered += inRange.length;
          return inRange.slice(0, limit);
        },
        lastCreated: async () => {
          calls++;
          const rest = after(cursor);
          considered += rest.length;
          return rest.slice(0, limit).at(-1)?.created;
        },
      };
    },
    stats: () => ({ considered, calls }),
    sorted,
  };
}

async function scanAll(windows: ScanWindows, e: ReturnType<typeof engine>, limit: number): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: Row | undefined;
  for (;;) {
    const page = await windows.page("k", cursor?.created, limit, e.reads(cursor, limit));
    out.push(...page);
    if (page.length < limit) return out;
    cursor = page.at(-1);
  }
}

describe("ScanWindows", () => {
  it("pages equal the keyset order over even, clustered, tied and far-apart created times", async () => {
    const rows: Row[] = [];
    for (let i = 0; i < 1500; i++) rows.push({ created: 1_000 + i * 10, id: `even${i}` });
    for (let i = 0; i < 700; i++) rows.push({ created: 500_000, id: `tie${(i * 7919) % 700}` });
    for (let i = 0; i < 50; i++) rows.push({ created: 10 ** 9 + i * 10 ** 7, id: `far${i}` });
    rows.push({ created: 10 ** 12, id: "last" });
    for (const limit of [3, 7, 100, 1000]) {
      const e = engine(rows);
      assert.deepEqual(await scanAll(new ScanWindows(), e, limit), e.sorted, `limit ${limit}`);
    }
  });

  it("an empty match ends at once, and a width learnt for one filter does not decide another's pages", async () => {
    const e = engine([]);
    assert.deepEqual(await new ScanWindows().page("k", undefined, 10, e.reads(undefined, 10)), []);
    const windows = new ScanWindows();
    const dense = engine(Array.from({ length: 500 }, (_, i) => ({ created: i, id: `d${i}` })));
    await scanAll(windows, dense, 50);
    const sparse = engine(Array.from({ length: 60 }, (_, i) => ({ created: i * 10 ** 6, id: `s${i}` })));
    const got: Row[] = [];
    let cursor: Row | undefined;
    for (;;) {
      const page = await windows.page("other", cursor?.created, 50, sparse.reads(cursor, 50));
      got.push(...page);
      if (page.length < 50) break;
      cursor = page.at(-1);
    }
    assert.deepEqual(got, sparse.sorted);
  });

  it("a pass over evenly spread posts reads each post a bounded number of times, not once per page", async () => {
    const n = 10_000;
    const limit = 100;
    const e = engine(Array.from({ length: n }, (_, i) => ({ created: i * 1000 + (i % 3), id: `p${i}` })));
    const got = await scanAll(new ScanWindows(), e, limit);
    assert.equal(got.length, n);
    const { considered, calls } = e.stats();
    // Unbounded pages would consider about n * pages / 2 = 500,000 rows; a window of twice a
    // page's span considers about 2 pages' worth per page (the first page reads everything once).
    assert.ok(considered < 5 * n, `considered ${considered} rows`);
    assert.ok(calls <= (n / limit) * (SCAN_WINDOW.widenings + 2), `${calls} calls`);
  });
});
