import assert from "node:assert/strict";
import { test } from "node:test";
import { figuresOf } from "./report-body.js";

const BODY = [
  "Run: 2026-01-01T00:00:00.000Z (3 s) on a test machine.",
  "",
  "A long paragraph of method and history that the report leaves to the decision records.",
  "It goes on over several lines and ends with a full stop.",
  "",
  "| set | F1 |",
  "| --- | --- |",
  "| dev | 0.5 |",
  "",
  "- dev: goal met",
  "",
  "Some history first. Per-class F1:",
  "",
  "| class | F1 |",
  "| --- | --- |",
  "| a | 0.1 |",
  "",
  "### A heading with a table",
  "Prose glued to the heading.",
  "",
  "| x |",
  "| --- |",
  "| 1 |",
  "",
  "### A heading with only prose",
  "",
  "Nothing to show here.",
].join("\n");

test("figuresOf keeps tables, lists, captions and headings that hold figures", () => {
  const out = figuresOf(BODY);
  assert.equal(
    out,
    [
      "| set | F1 |\n| --- | --- |\n| dev | 0.5 |",
      "- dev: goal met",
      "Per-class F1:",
      "| class | F1 |\n| --- | --- |\n| a | 0.1 |",
      "### A heading with a table",
      "| x |\n| --- |\n| 1 |",
    ].join("\n\n"),
  );
});

test("figuresOf drops a caption that is a whole paragraph of narrative", () => {
  const long = `${"word ".repeat(100)}ending in a colon:`;
  assert.equal(figuresOf(`${long}\n\n| a |\n| --- |\n| 1 |`), "| a |\n| --- |\n| 1 |");
});

test("figuresOf is stable on its own output", () => {
  const once = figuresOf(BODY);
  assert.equal(figuresOf(once), once);
});
