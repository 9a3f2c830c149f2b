/**
 * The label model (src/enrich/leads/label-model.ts): on votes drawn from known firing rates it
 * recovers the class prior and ranks an accurate function's precision above a noisy one's, with
 * no label given; the committed file matches today's voters and reads an ask as an ask.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkLabelModel,
  compileLabelModel,
  fitLabelModel,
  voterPrecision,
} from "../../src/enrich/leads/label-model.js";
import raw from "../../src/enrich/leads/label-model.json" with { type: "json" };
import { LEAD_MODEL_CLASSES, type LeadModelClass } from "../../src/enrich/leads/lead-classes.js";
import { lfVotes } from "../../src/enrich/leads/lf-votes.js";
import type { Post } from "../../src/model/post.js";
import { seededRandom } from "../../src/topics/random.js";

/** Voters of the synthetic set: the class each votes, and P(fires | its class), P(fires | another). */
const SYNTHETIC: [LeadModelClass, number, number][] = [
  ["pain_point", 0.6, 0.02],
  ["pain_point", 0.4, 0.2],
  ["solution_request", 0.7, 0.03],
  ["solution_request", 0.5, 0.05],
  ["none", 0.5, 0.05],
];
const TRUE_PRIOR = [0.6, 0.2, 0.2, 0, 0];

function post(title: string, content = ""): Post {
  return {
    id: "t:1",
    source: "reddit",
    nativeId: "1",
    subforum: "smallbusiness",
    title,
    content,
    author: "",
    upvotes: 1,
    comments: 0,
    created: 0,
    url: "",
  };
}

describe("label model", () => {
  it("recovers the prior and ranks voters by precision from votes alone", () => {
    const random = seededRandom(7);
    const rows: Uint8Array[] = [];
    for (let i = 0; i < 4000; i++) {
      const u = random();
      const y = u < TRUE_PRIOR[0]! ? 0 : u < TRUE_PRIOR[0]! + TRUE_PRIOR[1]! ? 1 : 2;
      rows.push(
        Uint8Array.from(SYNTHETIC, ([votes, on, off]) =>
          random() < (LEAD_MODEL_CLASSES[y] === votes ? on : off) ? 1 : 0,
        ),
      );
    }
    const classes = SYNTHETIC.map(([c]) => c);
    const m = fitLabelModel(rows, classes, { iterations: 50, smoothing: 1 });
    for (const c of [0, 1, 2])
      assert.ok(Math.abs(m.prior[c]! - TRUE_PRIOR[c]!) < 0.08, `prior of ${LEAD_MODEL_CLASSES[c]}: ${m.prior[c]}`);
    assert.ok(voterPrecision(m, 0, "pain_point") > voterPrecision(m, 1, "pain_point"));
    assert.ok(voterPrecision(m, 0, "pain_point") > 0.8);
  });

  it("the committed model matches today's voters and gives each post a distribution", () => {
    const file = checkLabelModel(raw);
    const model = compileLabelModel(file);
    const q = model.posterior(lfVotes(post("Can anyone recommend a CRM for a five person team?")));
    assert.ok(Math.abs(q.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    assert.equal(LEAD_MODEL_CLASSES[q.indexOf(Math.max(...q))], "solution_request");
  });

  it("refuses a file fitted on other voters, naming the field", () => {
    const stale = structuredClone(raw) as { voters: unknown[] };
    stale.voters.pop();
    assert.throws(() => checkLabelModel(stale), /label model: voters must list today's labelling functions/);
    assert.throws(() => checkLabelModel({ format: "x" }), /label model: format/);
  });
});
