/**
 * The gazetteer as data (src/enrich/leads/products/products.json): the file keeps its rules (every
 * field typed, no spelling listed twice), every alias resolves to its product, every spelling is
 * found in a sentence, and names that are also words count only written with a capital.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  canonicalProduct,
  checkGazetteer,
  GAZETTEER,
  gazetteerEntry,
  PLATFORMS,
  productMentions,
} from "../../src/enrich/leads/gazetteer.js";

describe("products.json", () => {
  it("lists each spelling once across names and aliases", () => {
    const seen = new Set<string>();
    for (const e of GAZETTEER)
      for (const s of [e.name, ...e.aliases]) {
        const key = s.toLowerCase().replace(/\s+/g, " ");
        assert.ok(!seen.has(key), `${s} listed twice`);
        seen.add(key);
      }
    assert.ok(GAZETTEER.length >= 100, `only ${GAZETTEER.length} products`);
  });

  it("refuses a file that lists a spelling twice or leaves out a field", () => {
    const shopify = { name: "Shopify", aliases: [], category: "ecommerce platform" };
    assert.throws(
      () => checkGazetteer({ products: [shopify, { name: "Magento", aliases: ["shopify"], category: "x" }] }),
      /"shopify" is listed twice \(also under Shopify\)/,
    );
    assert.throws(() => checkGazetteer({ products: [{ name: "Wix", aliases: [] }] }), /category must be/);
    assert.throws(() => checkGazetteer({ items: [] }), /expected \{ products/);
  });

  it("resolves every alias and name, in any case, to its product", () => {
    for (const e of GAZETTEER) {
      assert.equal(canonicalProduct(e.name), e.name);
      assert.equal(canonicalProduct(e.name.toUpperCase()), e.name);
      for (const a of e.aliases) {
        assert.equal(canonicalProduct(a), e.name, a);
        assert.equal(gazetteerEntry(a.toLowerCase())?.category, e.category, a);
      }
    }
    assert.equal(canonicalProduct("Google  AdWords"), "Google AdWords");
    assert.equal(canonicalProduct("AdWords"), "Google AdWords");
    assert.equal(canonicalProduct("ecommerce platform"), undefined);
  });

  it("finds every spelling written in a sentence, reported canonically", () => {
    for (const e of GAZETTEER)
      for (const s of [e.name, ...e.aliases]) {
        const text = `We tried ${s} last year.`;
        const found = productMentions(text);
        assert.equal(found[0]?.name, e.name, `${s} in ${JSON.stringify(text)}`);
        assert.equal(text.slice(found[0]!.start, found[0]!.end), s);
      }
  });

  it("takes names that are also words only with a capital, and marks platforms", () => {
    assert.deepEqual(productMentions("I keep lots of windows open and slack off"), []);
    assert.deepEqual(
      productMentions("Windows and Slack, then windows 7").map((m) => m.name),
      ["Windows", "Slack", "Windows"],
    );
    for (const p of ["Windows", "Linux", "WordPress", "Excel", "iPhone"]) assert.ok(PLATFORMS.has(p), p);
    assert.ok(!PLATFORMS.has("Shopify"));
  });
});
