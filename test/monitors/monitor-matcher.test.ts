/**
 * The vector side of the percolator: one product of post vectors with the monitors' query
 * matrix gives the same relevance as scoring each pair alone, thresholds and lead rules apply,
 * and the common filters exclude what they name.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { absoluteRelevance, coverage, coverageWords, LEAD_FLOORS } from "../../src/core/absolute-relevance.js";
import type { IndexedPost } from "../../src/model/post.js";
import { keywordSubject } from "../../src/monitors/keyword-match.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { MonitorMatcher } from "../../src/monitors/monitor-matcher.js";
import { monitorQueryText } from "../../src/monitors/monitor-query.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";
import { forumPost, storedMonitor } from "./monitor-fixtures.js";

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
}

/** A search monitor for "crm for dentists" that asks leads for a score of 50. */
function monitor(id: string, over: Partial<StoredMonitor>): StoredMonitor {
  return storedMonitor(id, { query: "crm for dentists", minScore: 50, ...over });
}

/** A dentistry post titled as a CRM question, with this id and vector. */
function post(id: string, vector: Float32Array, over: Partial<IndexedPost> = {}): IndexedPost {
  return forumPost(id, {
    id,
    title: "Which CRM do dentists use",
    content: "",
    subforum: "dentistry",
    vector,
    ...over,
  });
}

describe("monitor matcher, vector side", () => {
  const alphas = { hybridAlpha: 0.5, shortQueryAlpha: 0.3 };
  const q = unit(1, 0, 0, 0);
  const monitors = [
    monitor("search", {}),
    monitor("strict", { minRelevance: 0.95 }),
    monitor("leads", { kind: "leads", minScore: 60, filter: { ...emptyFilter(), leadTypes: ["buying_intent"] } }),
    monitor("filtered", { filter: { ...emptyFilter(), excludeSubforums: ["dentistry"] } }),
    monitor("paused", { paused: true }),
  ];
  const model = "use-lite-512";
  const floor = LEAD_FLOORS[model]!;
  const matcher = new MonitorMatcher(monitors, new Map(monitors.map((m) => [m.id, q])), 4, alphas, model);

  test("the batched product gives each pair's own relevance, and thresholds and rules apply", async () => {
    const near = post("near", unit(0.9, 0.1, 0, 0), { leadType: "buying_intent", leadScore: 80 });
    const far = post("far", unit(0, 1, 0, 0), { title: "unrelated" });
    const weakLead = post("weak", unit(0.9, 0.1, 0, 0), { leadType: "buying_intent", leadScore: 40 });
    const matches = await matcher.match([near, far, weakLead]);
    const got = matches.map((m) => `${m.monitor.id}:${m.post.id}`).sort();
    assert.deepEqual(got, ["leads:near", "search:near", "search:weak"]);
    const cos = unit(0.9, 0.1, 0, 0).reduce((s, x, i) => s + x * q[i]!, 0);
    const expected = absoluteRelevance(
      cos,
      0.5,
      coverage(coverageWords("crm for dentists"), keywordSubject(near).wordSet),
    );
    assert.ok(Math.abs(matches.find((m) => m.post.id === "near")!.relevance - expected) < 1e-6);
    // Words of three letters or more count; "a" and "to" would not.
    assert.deepEqual(coverageWords("a crm for dentists to use"), ["crm", "for", "dentists", "use"]);
  });

  test("search and leads monitors match the subject their query path retrieves, not its frame", async () => {
    assert.equal(monitorQueryText({ kind: "search", query: "What are people saying about Notion?" }), "Notion");
    assert.equal(monitorQueryText({ kind: "leads", query: "looking for a CRM for dentists" }), "CRM for dentists");
    assert.equal(monitorQueryText({ kind: "leads", query: "alternative to mailchimp" }), "mailchimp");
    assert.equal(monitorQueryText({ kind: "keywords", query: "looking for" }), "looking for");
    // Coverage counts the subject's words: "crm" and "dentists" of "CRM for dentists" are in the
    // post, "for" is not (2 of 3). With the frame it would be 2 of 4 ("looking" and "for" missing).
    const framed = monitor("framed", { kind: "leads", query: "looking for a CRM for dentists", minRelevance: 0 });
    const m = new MonitorMatcher([framed], new Map([["framed", q]]), 4, alphas, model);
    const v = unit(0.9, 0.1, 0, 0);
    const lead = post("lead", v, { leadType: "buying_intent", leadScore: 90 });
    const [hit] = await m.match([lead]);
    assert.ok(Math.abs(hit!.relevance - (0.5 * v[0]! + 0.5 * (2 / 3))) < 1e-6, `relevance ${hit!.relevance}`);
  });

  test("a leads monitor is judged as FindLeads judges a candidate: the model's floor and the subject", async () => {
    // Its min_relevance (a search monitor's bar) plays no part: 0 and 0.99 match alike.
    const lenient = monitor("lenient", { kind: "leads", minRelevance: 0 });
    const strict = monitor("strict", { kind: "leads", minRelevance: 0.99 });
    const search = monitor("search", { minRelevance: 0 });
    const m = new MonitorMatcher(
      [lenient, strict, search],
      new Map([lenient, strict, search].map((x) => [x.id, q])),
      4,
      alphas,
      model,
    );
    const lead: Partial<IndexedPost> = { leadType: "buying_intent", leadScore: 90 };
    // Cosine just under the subject similarity, and "dentists" missing: "crm" and "for" cover 2 of 3.
    const c = floor.subjectSimilarity - 0.01;
    const offSubject = post("off", unit(c, Math.sqrt(1 - c * c), 0, 0), {
      ...lead,
      title: "A CRM for plumbers",
    });
    assert.ok(0.5 * c + 0.5 * (2 / 3) >= floor.floor, "the off-subject post must reach the floor for this test");
    // Every subject word present but the cosine so low that the relevance stays under the floor.
    const low = post("low", unit(0, 1, 0, 0), { ...lead, title: "crm dentists" });
    assert.ok(0.5 * (2 / 3) < floor.floor);
    // The subject's words and a close vector.
    const about = post("about", unit(0.9, 0.1, 0, 0), lead);
    const got = (await m.match([offSubject, low, about])).map((x) => `${x.monitor.id}:${x.post.id}`).sort();
    assert.deepEqual(got, ["lenient:about", "search:about", "search:low", "search:off", "strict:about"]);
  });
});
