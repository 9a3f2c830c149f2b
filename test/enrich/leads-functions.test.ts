/**
 * The labelling functions kept as data (src/enrich/leads/functions/): every file loads, every
 * `fires` example matches and every `abstains` example does not, and a malformed file is refused
 * naming the file and the field.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { describe, it } from "node:test";
import {
  compileFunction,
  exampleFailures,
  FUNCTIONS_DIR,
  labellingFunctions,
  patternOf,
} from "../../src/enrich/leads/labelling-functions.js";
import { CUES } from "../../src/enrich/leads/signals.js";
import { clean } from "../../src/enrich/leads/text.js";

describe("labelling functions as data", () => {
  it("loads one function per file", () => {
    const files = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith(".json"));
    assert.equal(labellingFunctions().size, files.length);
    assert.ok(files.length > 100);
  });

  it("every function fires on its positive examples and on none of its negative ones", () => {
    const failures = [...labellingFunctions().values()].flatMap((f) => exampleFailures(f, clean));
    assert.deepEqual(failures, []);
  });

  it("every intent has cues, and the cues are the functions voting for a lead type", () => {
    const cues = Object.values(CUES).flat();
    for (const [intent, list] of Object.entries(CUES)) assert.ok(list.length > 0, intent);
    const voting = [...labellingFunctions().values()].filter((f) => f.votes !== "none" && f.votes !== "abstain");
    assert.equal(cues.length, voting.length);
  });

  it("expands a word list placeholder into the pattern", () => {
    const re = patternOf("solution-request.need-a-thing");
    assert.ok(re.test("we need a good invoicing tool"));
    assert.ok(re.test("I need an accounting app"));
    assert.ok(!re.test("I need a break"));
  });

  it("refuses a malformed file naming the field", () => {
    const ok = { votes: "pain_point", pattern: "broken", fires: ["it is broken"], abstains: ["it works"] };
    assert.equal(compileFunction("x", ok).weight, 1);
    assert.throws(() => compileFunction("x", { ...ok, votes: "lead" }), /x\.json: votes/);
    assert.throws(() => compileFunction("x", { ...ok, weight: 2 }), /x\.json: weight/);
    assert.throws(() => compileFunction("x", { ...ok, fires: [] }), /x\.json: fires/);
    assert.throws(() => compileFunction("x", { ...ok, flags: "gi" }), /x\.json: flags/);
    assert.throws(() => compileFunction("x", { ...ok, pattern: "{nothing}" }), /\{nothing\}/);
    assert.throws(() => compileFunction("x", { ...ok, extra: 1 }), /unknown field extra/);
    assert.throws(() => patternOf("no.such-function"), /no labelling function no\.such-function/);
  });
});
