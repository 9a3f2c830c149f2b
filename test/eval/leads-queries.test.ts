import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { LeadLabel } from "./lead-labels.js";
import { loadLeadLabels } from "./lead-labels.js";
import { isRelevantLead, judgeAnswer, loadLeadQueries, parseLeadQueries, QUERY_GROUPS } from "./leads-queries.js";

function label(id: string, leadType: LeadLabel["leadType"], targetProduct = ""): LeadLabel {
  return { split: "train", id, leadType, targetProduct, painPoint: "", industry: "general" };
}

const crm = { accepted: new Set(["crm", "crm software"]) };

describe("the judging rule", () => {
  test("a labelled lead with an accepted target product is relevant, whatever its lead type", () => {
    assert.equal(isRelevantLead(crm, label("reddit:a", "solution_request", "crm")), true);
    assert.equal(isRelevantLead(crm, label("reddit:b", "switching", "CRM Software")), true);
  });

  test("a lead for another product, a non-lead and a dropped post are not", () => {
    assert.equal(isRelevantLead(crm, label("reddit:c", "solution_request", "crm tutorials")), false);
    assert.equal(isRelevantLead(crm, label("reddit:d", "none")), false);
    assert.equal(isRelevantLead(crm, label("reddit:e", "drop")), false);
  });

  test("an answer's precision counts relevant returned posts over returned ones; empty has none", () => {
    const labels = new Map(
      [label("a", "solution_request", "crm"), label("b", "none"), label("c", "pain_point", "crm")].map(
        (l): [string, LeadLabel] => [l.id, l],
      ),
    );
    assert.deepEqual(judgeAnswer(crm, ["a", "b"], labels), {
      returned: 2,
      relevantReturned: 1,
      precision: 0.5,
      relevantInSet: 2,
    });
    assert.equal(judgeAnswer(crm, [], labels).precision, undefined);
    assert.throws(() => judgeAnswer(crm, ["zz"], labels), /zz is not in the labelled set/);
  });
});

describe("the query file", () => {
  const queries = loadLeadQueries();

  test("holds 30 queries, ten of each group, each with some expected empty", () => {
    assert.equal(queries.length, 30);
    for (const g of QUERY_GROUPS) {
      const mine = queries.filter((q) => q.group === g);
      assert.equal(mine.length, 10, g);
      assert.ok(
        mine.some((q) => q.expect === "empty"),
        `${g} has no query expected to be empty`,
      );
    }
  });

  test("a query expected empty has no relevant lead in the labelled set, and every other has one", () => {
    const labels = loadLeadLabels();
    for (const q of queries) {
      const n = labels.filter((l) => isRelevantLead(q, l)).length;
      assert.equal(n > 0, q.expect === "lead", `${q.id} "${q.query}": ${n} relevant labelled leads`);
    }
  });

  test("parsing names the line of a bad group or an empty accepted set", () => {
    assert.throws(() => parseLeadQueries("X1\tthing\tlead\tq\tcrm\n", "q.tsv"), /q\.tsv:1: group "thing"/);
    assert.throws(() => parseLeadQueries("# h\nX1\tproduct\tlead\tq\t | \n", "q.tsv"), /q\.tsv:2: no accepted/);
  });
});
