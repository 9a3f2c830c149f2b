/**
 * The test tiers (test/tiers.ts): every *.test.ts is in exactly one tier, `all` is every file,
 * and the rule puts suites that start servers in the full tier and pure unit tests in the fast one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { allTestFiles, slowReason, tierFiles } from "../tiers.js";

test("fast and slow split every test file, with nothing left out or counted twice", () => {
  const all = allTestFiles();
  const fast = tierFiles("fast");
  const slow = tierFiles("slow");
  assert.deepEqual(tierFiles("all"), all);
  assert.equal(fast.length + slow.length, all.length);
  assert.deepEqual([...fast, ...slow].sort(), all);
  assert.ok(fast.length > 0 && slow.length > 0);
});

test("the rule follows imports: a harness user is slow, a pure unit test is fast", () => {
  assert.match(slowReason("test/docs/readme.test.ts") ?? "", /imports test\/harness/);
  assert.match(slowReason("test/docs/generated-docs.test.ts") ?? "", /listener|wiring|process/);
  assert.equal(slowReason("test/core/page-token.test.ts"), undefined);
  assert.equal(slowReason("test/docs/tiers.test.ts"), undefined);
});
