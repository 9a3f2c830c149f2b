/**
 * The percolator's matrix product (query-product.ts): each cell is that post's dot product with
 * that query, at the embedder's width and with sizes that are not multiples of any block, and the
 * matcher reads each (post, monitor) pair's own cell.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { absoluteRelevance, coverage, coverageWords } from "../../src/core/absolute-relevance.js";
import { alphaFor } from "../../src/core/hybrid-alpha.js";
import { keywordText } from "../../src/core/keyword-text.js";
import { keywordSubject } from "../../src/monitors/keyword-match.js";
import { MonitorMatcher } from "../../src/monitors/monitor-matcher.js";
import { queryProducts } from "../../src/monitors/query-product.js";
import { forumPost, storedMonitor } from "./monitor-fixtures.js";

/** Deterministic unit vectors (xorshift), so a failure repeats. */
function vectors(count: number, d: number, seed: number): Float32Array[] {
  let s = seed;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0xffffffff - 0.5;
  };
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: d }, next);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const packed = (vs: Float32Array[], d: number): Float32Array => {
  const out = new Float32Array(vs.length * d);
  vs.forEach((v, i) => out.set(v, i * d));
  return out;
};

describe("query product", () => {
  test("cell (i, j) is post i's dot product with query j", async () => {
    const d = 512;
    const posts = vectors(7, d, 0x1234567);
    const queries = vectors(13, d, 0x7654321);
    const out = await queryProducts(packed(posts, d), 7, packed(queries, d), 13, d);
    assert.equal(out.length, 7 * 13);
    for (let i = 0; i < 7; i++)
      for (let j = 0; j < 13; j++)
        assert.ok(Math.abs(out[i * 13 + j]! - dot(posts[i]!, queries[j]!)) < 1e-5, `${i},${j}`);
  });

  test("sizes that do not fit are refused, and an empty side gives an empty product", async () => {
    await assert.rejects(
      queryProducts(new Float32Array(10), 3, new Float32Array(12), 3, 4),
      /10 post values for 3 x 4/,
    );
    assert.equal((await queryProducts(new Float32Array(0), 0, new Float32Array(8), 2, 4)).length, 0);
  });

  test("the matcher scores each (post, monitor) pair with that pair's own cosine", async () => {
    const d = 64;
    const qs = vectors(5, d, 0xabcdef);
    const ps = vectors(3, d, 0xfedcba);
    // Every pair passes (min_relevance 0), so every cell is read.
    const monitors = qs.map((_, j) => storedMonitor(`m${j}`, { query: "crm for dentists", minRelevance: 0 }));
    const posts = ps.map((vector, i) =>
      forumPost(`p${i}`, {
        id: `p${i}`,
        title: i === 0 ? "Which CRM do dentists use" : "Another question",
        content: "",
        vector,
      }),
    );
    const alphas = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };
    const matcher = new MonitorMatcher(
      monitors,
      new Map(monitors.map((m, j) => [m.id, qs[j]!])),
      d,
      alphas,
      "use-lite-512",
    );
    const matches = await matcher.match(posts);
    assert.equal(matches.length, 15);
    for (const m of matches) {
      const i = Number(m.post.id.slice(1));
      const j = Number(m.monitor.id.slice(1));
      const alpha = alphaFor(keywordText(m.monitor.query), alphas);
      const covered = coverage(coverageWords(m.monitor.query), keywordSubject(m.post).wordSet);
      const want = absoluteRelevance(dot(ps[i]!, qs[j]!), alpha, covered);
      assert.ok(Math.abs(m.relevance - want) < 1e-5, `${m.post.id}/${m.monitor.id}: ${m.relevance} vs ${want}`);
    }
  });
});
