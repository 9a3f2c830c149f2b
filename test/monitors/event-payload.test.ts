/**
 * A batch's event payloads (eventPayloads, which renders each post once) are, text for text,
 * what rendering every match on its own (eventPayload) gives: a post matched by several monitors
 * with different relevances, a keyword match and a lead.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventPayload, eventPayloads } from "../../src/monitors/monitor-event.js";
import type { MonitorMatch } from "../../src/monitors/monitor-matcher.js";
import { forumPost, storedMonitor } from "./monitor-fixtures.js";

describe("event payloads of a batch", () => {
  it("equal each match rendered alone, with the relevance of each match", () => {
    const crm = forumPost("p1", {
      title: "Looking for a CRM",
      content: "We need a CRM for a team of five.",
      leadType: "solution_request",
      leadScore: 88,
    });
    const other = forumPost("p2", { title: "Notion vs Obsidian", content: "Which one do you use?" });
    const search = storedMonitor("m1", { kind: "search", query: "crm" });
    const leads = storedMonitor("m2", { kind: "leads", query: "looking for a crm" });
    const words = storedMonitor("m3", { kind: "keywords", query: '"notion" OR obsidian' });
    const matches: MonitorMatch[] = [
      { monitor: search, post: crm, relevance: 0.61, matchedTerms: [] },
      { monitor: leads, post: crm, relevance: 0.83, matchedTerms: [] },
      { monitor: words, post: other, relevance: 1, matchedTerms: ["notion", "obsidian"] },
      { monitor: search, post: other, relevance: 0, matchedTerms: [] },
    ];
    const batch = eventPayloads(matches, "sync");
    assert.deepEqual(
      batch,
      matches.map((m) => eventPayload(m, "sync")),
    );
    assert.equal(JSON.parse(batch[1]!).post.relevance, 0.83, "the second match of a post keeps its own relevance");
  });
});
