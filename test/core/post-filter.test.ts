/**
 * The in-memory reading of a QueryFilter (what monitors use per post) accepts exactly the posts
 * the engines return for it: checked on every case of the index filter contract, whose reference
 * both backends are held to.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { passesQueryFilter } from "../../src/core/post-filter.js";
import { filterCases, filterPosts } from "../index/filter-contract.js";
import { matchesFilter } from "../index/filter-reference.js";

describe("passesQueryFilter", () => {
  const posts = filterPosts();
  for (const [name, filter] of filterCases()) {
    test(name, () => {
      const got = posts.filter((p) => passesQueryFilter(filter, p)).map((p) => p.id);
      const want = posts.filter((p) => matchesFilter(p, filter)).map((p) => p.id);
      assert.deepEqual(got, want);
      assert.ok(want.length < posts.length, `${name} restricts something`);
    });
  }
});
