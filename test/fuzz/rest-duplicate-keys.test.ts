/** findDuplicateKey: the REST gateway's guard against ambiguous JSON bodies. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findDuplicateKey } from "../../src/gateway/duplicate-keys.js";

describe("findDuplicateKey", () => {
  it("finds a repeated key at any depth, compared after unescaping", () => {
    assert.equal(findDuplicateKey('{"query":"a","query":"b"}'), "query");
    assert.equal(findDuplicateKey('{"a":{"x":1,"y":2,"x":3}}'), "x");
    assert.equal(findDuplicateKey('{"a":[{"k":1},{"k":2,"k":3}]}'), "k");
    assert.equal(findDuplicateKey('{"query":"a","\\u0071uery":"b"}'), "query");
    assert.equal(findDuplicateKey('{ "limit" : 1 , "limit"\n:\t2 }'), "limit");
  });

  it("accepts the same key in sibling objects, keys inside strings, and escaped quotes", () => {
    assert.equal(findDuplicateKey('[{"k":1},{"k":2}]'), undefined);
    assert.equal(findDuplicateKey('{"a":{"k":1},"b":{"k":1}}'), undefined);
    assert.equal(findDuplicateKey('{"query":"\\"query\\": 1, \\"query\\":","limit":5}'), undefined);
    assert.equal(findDuplicateKey('{"q":"a\\\\","r":"\\\\"}'), undefined);
    assert.equal(findDuplicateKey('["a","a"]'), undefined);
    assert.equal(findDuplicateKey('"x"'), undefined);
  });

  it("walks 10,000 levels of nesting without recursion", () => {
    const deep = `${'{"a":'.repeat(10_000)}{}${"}".repeat(10_000)}`;
    JSON.parse(deep);
    assert.equal(findDuplicateKey(deep), undefined);
    assert.equal(findDuplicateKey(`${"[".repeat(10_000)}{"k":1,"k":2}${"]".repeat(10_000)}`), "k");
  });
});
