import assert from "node:assert/strict";
import { test } from "node:test";
import { missingBackend } from "../harness/backend-policy.js";
import { LABELLED_CORPORA, labelledPosts } from "./labelled-posts.js";
import { loadLeadLabels } from "./lead-labels.js";
import { hasData, SHARED_DATA } from "./shared-data.js";

const files = LABELLED_CORPORA.map(([file]) => file);
const skip = hasData(...files) ? false : missingBackend("data", `${files.join(", ")} not found under ${SHARED_DATA}`);

test("every hand-labelled lead post is a post of the three corpora", { skip }, async () => {
  const labels = [...loadLeadLabels(), ...loadLeadLabels("leads-second.tsv")];
  // labelledPosts throws naming the first id no corpus holds.
  const posts = await labelledPosts(labels.map((l) => ({ split: l.split, id: l.id, accepted: new Set<string>() })));
  assert.equal(posts.length, labels.length);
  posts.forEach((p, i) => assert.equal(p.id, labels[i]!.id));
});
