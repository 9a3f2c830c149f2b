import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  isLead,
  LEAD_LABEL_TYPES,
  type LeadLabel,
  loadLeadLabels,
  loadLeadStrata,
  parseLeadLabels,
} from "./lead-labels.js";
import { splitOf } from "./lead-strata.js";
import { agreement, kappa } from "./leads-agreement.js";
import { cohenKappa } from "./metrics.js";

function label(id: string, leadType: LeadLabel["leadType"], targetProduct = ""): LeadLabel {
  return { split: splitOf(id), id, leadType, targetProduct, painPoint: "", industry: "general" };
}

describe("lead label files", () => {
  const labels = loadLeadLabels();
  const second = loadLeadLabels("leads-second.tsv");

  test("leads.tsv holds at least 1,500 posts, each with a guideline lead type", () => {
    assert.ok(labels.length >= 1500, `only ${labels.length} labelled posts`);
    for (const l of labels) assert.ok(LEAD_LABEL_TYPES.includes(l.leadType), l.id);
  });

  test("splits are the post id's hash split, in both files", () => {
    for (const l of [...labels, ...second]) assert.equal(l.split, splitOf(l.id), l.id);
    const shares = new Map<string, number>();
    for (const l of labels) shares.set(l.split, (shares.get(l.split) ?? 0) + 1);
    // 60/20/20 by hash: each share lands within a few points of its target on 1,600 ids.
    assert.ok(Math.abs(shares.get("train")! / labels.length - 0.6) < 0.05, JSON.stringify([...shares]));
    assert.ok(Math.abs(shares.get("test")! / labels.length - 0.2) < 0.05, JSON.stringify([...shares]));
  });

  test("the second labels are of posts of the first file's first 200 rows", () => {
    const first200 = new Set(labels.slice(0, 200).map((l) => l.id));
    assert.ok(second.length > 0 && second.length <= 200, String(second.length));
    for (const l of second) assert.ok(first200.has(l.id), `${l.id} is not among the first 200 rows`);
  });

  test("every labelled post is a row of the sample's strata file, in its order", () => {
    const { rows, sizes } = loadLeadStrata();
    assert.deepEqual(
      labels.map((l) => l.id),
      rows.map((r) => r.id),
    );
    for (const r of rows) assert.ok(sizes.has(r.stratum), `stratum ${r.stratum} has no size line`);
  });
});

describe("label parsing", () => {
  const id = "reddit:abc";
  const line = (type: string, target = "NONE", split = splitOf(id)): string =>
    `# header\n${split}\t${id}\t${type}\t${target}\tNONE\tgeneral\n`;

  test("accepts a well-formed line and reads NONE as empty", () => {
    const [l] = parseLeadLabels(line("solution_request", "crm"), "x.tsv");
    assert.deepEqual(l, label(id, "solution_request", "crm"));
    assert.equal(parseLeadLabels(line("none"), "x.tsv")[0]!.targetProduct, "");
  });

  test("rejects an unknown lead type, a wrong split and a target on a non-lead, naming the line", () => {
    assert.throws(() => parseLeadLabels(line("advice_request"), "x.tsv"), /x\.tsv:2: lead_type "advice_request"/);
    const wrong = splitOf(id) === "test" ? "dev" : "test";
    assert.throws(() => parseLeadLabels(line("none", "NONE", wrong), "x.tsv"), /x\.tsv:2: split .* must be/);
    assert.throws(() => parseLeadLabels(line("none", "crm"), "x.tsv"), /must have target_product and pain_point NONE/);
  });
});

describe("agreement", () => {
  test("kappa on a hand example: 5 of 6 agree, chance 13/36, kappa 17/23", () => {
    const a = ["a", "a", "a", "b", "b", "c"];
    const b = ["a", "a", "b", "b", "b", "c"];
    assert.ok(Math.abs(kappa(a, b) - 17 / 23) < 1e-12, String(kappa(a, b)));
    assert.equal(kappa(a, a), 1);
    assert.ok(Number.isNaN(kappa(["a", "a"], ["a", "a"])));
  });

  test("two categories agree with the binary kappa of metrics.ts", () => {
    const x = [true, true, false, false, true, false, true, true];
    const y = [true, false, false, false, true, true, true, true];
    assert.ok(Math.abs(kappa(x.map(String), y.map(String)) - cohenKappa(x, y)) < 1e-12);
  });

  test("pairs with a dropped post are left out and counted; targets compare case-folded", () => {
    const first = [
      label("p:1", "solution_request", "CRM"),
      label("p:2", "none"),
      label("p:3", "drop"),
      label("p:4", "pain_point"),
    ];
    const second = [
      label("p:1", "solution_request", "crm"),
      label("p:2", "pain_point"),
      label("p:3", "none"),
      label("p:5", "none"),
    ];
    const r = agreement(first, second);
    assert.equal(r.pairs, 2);
    assert.equal(r.dropped, 1);
    assert.equal(r.typeAgreement, 0.5);
    assert.equal(r.bothLead, 1);
    assert.equal(r.sameTarget, 1);
    assert.equal(r.confusion.get("none")!.get("pain_point"), 1);
    assert.ok(isLead(first[0]!) && !isLead(first[2]!));
  });
});
