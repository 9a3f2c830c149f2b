/**
 * The generated reference pages are current (scripts/gen-docs.ts would write nothing), every error
 * kind of the error table is on the errors page with a description, and every relative link in
 * README.md and docs/ resolves (scripts/check-links.ts), apart from the pages listed in PENDING.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { brokenLinks, headingSlug } from "../../scripts/check-links.js";
import { ERROR_WHEN, errorsPage, generatedPages } from "../../scripts/gen-docs.js";
import { ERROR_TABLE } from "../../src/errors/error-table.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";

/**
 * Guides written on other branches, linked from here before they land. A link to one of them is
 * not reported while the page is absent; once it exists it is checked like any other. Empty this
 * list when they have all landed (`npm run docs:check`, which CI runs, never exempts them).
 */
const PENDING = new Set<string>();

test("docs/reference/errors.md and cli.md are what scripts/gen-docs.ts writes", async () => {
  for (const [rel, text] of await generatedPages()) {
    const current = readFileSync(path.join(PACKAGE_ROOT, rel), "utf8");
    assert.equal(current, text, `${rel} is stale: run npm run docs`);
  }
});

test("every error kind is on the errors page with its reason, status and a description", () => {
  const { text, missing } = errorsPage();
  assert.deepEqual(missing, [], `add a line to ERROR_WHEN in scripts/gen-docs.ts for ${missing.join(", ")}`);
  for (const [kind, row] of Object.entries(ERROR_TABLE)) {
    assert.match(text, new RegExp(`^\\| ${row.http} \\| \`[a-z_]+\` \\| \`${row.reason}\` \\| .+ \\|$`, "m"), kind);
    assert.ok(ERROR_WHEN[kind as keyof typeof ERROR_WHEN], kind);
  }
});

test("every relative link in README.md and docs/ resolves", () => {
  const broken = brokenLinks().filter((b) => {
    const target = path.normalize(path.join(path.dirname(b.file), b.target.split("#")[0] ?? ""));
    return !(b.problem === "no such file" && PENDING.has(target));
  });
  assert.deepEqual(
    broken.map((b) => `${b.file}:${b.line} ${b.target} (${b.problem})`),
    [],
  );
});

test("the link checker reports a missing file and a missing heading, and passes good links", () => {
  assert.equal(headingSlug("How fast, how good"), "how-fast-how-good");
  assert.equal(headingSlug("The `threadsight` command"), "the-threadsight-command");
  const dir = mkdtempSync(path.join(os.tmpdir(), "links-"));
  try {
    writeFileSync(path.join(dir, "other.md"), "# Other page\n\n## A part, here\n");
    const page = path.join(dir, "page.md");
    writeFileSync(
      page,
      [
        "[ok](other.md) [ok anchor](other.md#a-part-here) [self](#top) [site](https://example.org/x)",
        "[gone](missing.md) [bad anchor](other.md#nowhere) `[in code](nope.md)`",
        "```",
        "[in a fence](nope.md)",
        "```",
        "# Top",
      ].join("\n"),
    );
    const found = brokenLinks([page]).map((b) => `${b.line} ${b.target} ${b.problem}`);
    assert.deepEqual(found, ["2 missing.md no such file", "2 other.md#nowhere no such heading"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
