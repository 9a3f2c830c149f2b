/**
 * The configuration reference lists exactly the variables the service reads: every name
 * src/config.ts (and the CLI entry, for LANCEDB_LOG) reads is a row of
 * docs/reference/configuration.md's first table, and every row names a variable that is read.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { PACKAGE_ROOT } from "../../src/package-root.js";

const read = (rel: string): string => readFileSync(path.join(PACKAGE_ROOT, rel), "utf8");

/** Variable names read in a source file: `env, "NAME"` (config.ts helpers) or `process.env.NAME`. */
function namesRead(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/\benv,\s*"([A-Z][A-Z0-9_]*)"/g)) names.add(m[1] ?? "");
  for (const m of source.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1] ?? "");
  return names;
}

/** Variable names in the backticked first cells of the reference's service-settings table. */
function namesDocumented(page: string): Set<string> {
  const end = page.indexOf("## Switches of the scripts and tests");
  const table = end < 0 ? page : page.slice(0, end);
  const names = new Set<string>();
  for (const line of table.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const first = line.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1] ?? "");
  }
  return names;
}

test("every variable src/config.ts reads is in docs/reference/configuration.md, and no other", () => {
  const read_ = namesRead(read("src/config.ts"));
  read_.add("LANCEDB_LOG"); // set by src/cli/main.ts for the engine's own logger
  assert.ok(read_.size >= 30, `found only ${read_.size} variables in src/config.ts: the pattern broke`);
  const documented = namesDocumented(read("docs/reference/configuration.md"));
  const undocumented = [...read_].filter((n) => !documented.has(n)).sort();
  const unknown = [...documented].filter((n) => !read_.has(n)).sort();
  assert.deepEqual(undocumented, [], `add a row to docs/reference/configuration.md for ${undocumented.join(", ")}`);
  assert.deepEqual(unknown, [], `docs/reference/configuration.md lists variables nothing reads: ${unknown.join(", ")}`);
});

test("the pattern finds a variable added the way config.ts adds them", () => {
  const names = namesRead('const x = { a: int(env, "NEW_SETTING", 1, 0, 9), b: process.env.OTHER };');
  assert.deepEqual([...names].sort(), ["NEW_SETTING", "OTHER"]);
  const documented = namesDocumented(
    "| variable | default |\n|---|---|\n| `A_B`, `C` | x |\n## Switches of the scripts and tests\n| `D` | y |",
  );
  assert.deepEqual([...documented].sort(), ["A_B", "C"]);
});
