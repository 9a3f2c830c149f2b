/**
 * The vector side of the percolator: one product of post vectors with the monitors' query
 * matrix gives the same relevance as scoring each pair alone, thresholds and lead rules apply,
 * and the common filters exclude what they name.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { IndexedPost } from "../../src/model/post.js";
import { keywordSubject } from "../../src/monitors/keyword-match.js";
import { emptyFilter } from "../../src/monitors/monitor-filters.js";
import { coverageWords, MonitorMatcher, monitorRelevance } from "../../src/monitors/monitor-matcher.js";
import { monitorQueryText } from "../../src/monitors/monitor-query.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
}

function monitor(id: string, over: Partial<StoredMonitor>): StoredMonitor {
  return {
    id,
    accountId: "a",
    name: id,
    kind: "search",
    query: "crm for dentists",
    minRelevance: 0.5,
    minScore: 50,
    filter: emptyFilter(),
    channels: [],
    paused: false,
    pausedReason: "",
    secret: "s",
    previousSecret: "",
    previousSecretUntil: 0,
    created: 0,
    updated: 0,
    ...over,
  };
}

function post(id: string, vector: Float32Array, over: Partial<IndexedPost> = {}): IndexedPost {
  return {
    id,
    source: "reddit",
    nativeId: id,
    title: "Which CRM do dentists use",
    content: "",
    subforum: "dentistry",
    author: "x",
    upvotes: 5,
    comments: 2,
    created: 0,
    url: "",
    sentiment: "neutral",
    sentimentScore: 0,
    leadType: "",
    leadScore: 0,
    painPoint: "",
    opportunity: "",
    industry: "",
    targetProduct: "",
    topicId: "",
    vector,
    ...over,
  };
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
  const matcher = new MonitorMatcher(monitors, new Map(monitors.map((m) => [m.id, q])), 4, alphas);

  test("the batched product gives each pair's own relevance, and thresholds and rules apply", () => {
    const near = post("near", unit(0.9, 0.1, 0, 0), { leadType: "buying_intent", leadScore: 80 });
    const far = post("far", unit(0, 1, 0, 0), { title: "unrelated" });
    const weakLead = post("weak", unit(0.9, 0.1, 0, 0), { leadType: "buying_intent", leadScore: 40 });
    const matches = matcher.match([near, far, weakLead]);
    const got = matches.map((m) => `${m.monitor.id}:${m.post.id}`).sort();
    assert.deepEqual(got, ["leads:near", "search:near", "search:weak"]);
    const cos = unit(0.9, 0.1, 0, 0).reduce((s, x, i) => s + x * q[i]!, 0);
    const expected = monitorRelevance(cos, 0.5, coverageWords("crm for dentists"), keywordSubject(near));
    assert.ok(Math.abs(matches.find((m) => m.post.id === "near")!.relevance - expected) < 1e-6);
    // Words of three letters or more count; "a" and "to" would not.
    assert.deepEqual(coverageWords("a crm for dentists to use"), ["crm", "for", "dentists", "use"]);
  });

  test("search and leads monitors match the subject their query path retrieves, not its frame", () => {
    assert.equal(monitorQueryText({ kind: "search", query: "What are people saying about Notion?" }), "Notion");
    assert.equal(monitorQueryText({ kind: "leads", query: "looking for a CRM for dentists" }), "CRM for dentists");
    assert.equal(monitorQueryText({ kind: "leads", query: "alternative to mailchimp" }), "mailchimp");
    assert.equal(monitorQueryText({ kind: "keywords", query: "looking for" }), "looking for");
    // Coverage counts the subject's words: "crm" and "dentists" of "CRM for dentists" are in the
    // post, "for" is not (2 of 3). With the frame it would be 2 of 4 ("looking" and "for" missing).
    const framed = monitor("framed", { kind: "leads", query: "looking for a CRM for dentists", minRelevance: 0 });
    const m = new MonitorMatcher([framed], new Map([["framed", q]]), 4, alphas);
    const lead = post("lead", unit(0, 1, 0, 0), { leadType: "buying_intent", leadScore: 90 });
    const [hit] = m.match([lead]);
    assert.ok(Math.abs(hit!.relevance - 0.5 * (2 / 3)) < 1e-6, `relevance ${hit!.relevance}`);
  });
});
