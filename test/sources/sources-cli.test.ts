/**
 * `threadsight sources` as an operator runs it (child processes over a fresh data directory):
 * add with validated settings, list as a table and as JSON, pause/resume/remove, and usage
 * errors that name the field and the rule (exit 2) or the missing source (exit 1).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../harness/seed.js";

describe("threadsight sources", () => {
  let env: Record<string, string>;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "threadsight-sources-cli-"));
    env = { THREADSIGHT_DATA_DIR: dir };
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it("adds, lists, pauses, resumes and removes sources", async () => {
    const add = await runCli(
      ["sources", "add", "se", "--kind", "stackexchange", "--settings", '{"site":"startups"}', "--interval", "120"],
      env,
    );
    assert.equal(add.code, 0, add.stderr);
    assert.match(
      add.stdout,
      /added se \[stackexchange\]: .*site=startups \(ids stackexchange:startups_se:<id>\), every 120 s/,
    );
    assert.equal((await runCli(["sources", "add", "hn", "--kind", "hackernews"], env)).code, 0);
    const list = await runCli(["sources", "list"], env);
    assert.match(list.stdout, /^NAME\s+KIND\s+STATUS/m);
    assert.match(list.stdout, /^hn\s+hackernews\s+new\s+60s/m);
    assert.equal((await runCli(["sources", "pause", "hn"], env)).code, 0);
    const json = JSON.parse((await runCli(["sources", "list", "--json"], env)).stdout) as {
      sources: { name: string; paused: boolean; settings: Record<string, unknown>; health: string }[];
    };
    assert.deepEqual(
      json.sources.map((s) => [s.name, s.paused]),
      [
        ["hn", true],
        ["se", false],
      ],
    );
    assert.equal(json.sources[1]!.settings["community"], "startups_se");
    assert.equal((await runCli(["sources", "resume", "hn"], env)).code, 0);
    assert.equal((await runCli(["sources", "remove", "hn"], env)).code, 0);
    const gone = await runCli(["sources", "remove", "hn"], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no source named "hn"/);
  });

  it("registers discourse, lemmy and reddit sources, and never prints a credential", async () => {
    const kinds: [string, string, string, RegExp][] = [
      [
        "meta",
        "discourse",
        '{"baseUrl":"https://meta.discourse.org","apiKey":"dk-1","apiUsername":"system"}',
        /ids discourse:meta\.discourse\.org:<topic id>/,
      ],
      [
        "lem",
        "lemmy",
        '{"instanceUrl":"https://lemmy.world","community":"startups"}',
        /lemmy\.world community startups/,
      ],
      [
        "rs",
        "reddit",
        '{"subreddit":"startups","clientId":"cid","clientSecret":"top-secret"}',
        /\/r\/startups \(OAuth app cid\)/,
      ],
    ];
    for (const [n, kind, settings, label] of kinds) {
      const add = await runCli(["sources", "add", n, "--kind", kind, "--settings", settings], env);
      assert.equal(add.code, 0, add.stderr);
      assert.match(add.stdout, label);
    }
    const listed = await runCli(["sources", "list", "--json"], env);
    assert.doesNotMatch(listed.stdout, /top-secret|dk-1/);
    const json = JSON.parse(listed.stdout) as { sources: { name: string; settings: Record<string, unknown> }[] };
    assert.equal(json.sources.find((s) => s.name === "rs")!.settings["clientSecret"], "(redacted)");
    const bad = await runCli(
      ["sources", "add", "rs2", "--kind", "reddit", "--settings", '{"subreddit":"startups"}'],
      env,
    );
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /settings\.clientId is required/);
    for (const [n] of kinds) assert.equal((await runCli(["sources", "remove", n], env)).code, 0);
  });

  it("refuses bad input naming the field and the rule", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["sources", "add", "x", "--kind", "myspace"],
        /--kind must be one of hackernews, stackexchange, rss, discourse, lemmy, reddit, got "myspace"/,
      ],
      [["sources", "add", "x", "--kind", "stackexchange"], /settings\.site is required/],
      [
        ["sources", "add", "x", "--kind", "rss", "--settings", '{"url":"ftp://x"}'],
        /settings\.url must be an http or https URL/,
      ],
      [["sources", "add", "x", "--kind", "hackernews", "--settings", "{not json"], /--settings must be a JSON object/],
      [
        ["sources", "add", "x", "--kind", "hackernews", "--interval", "1"],
        /--interval must be a whole number of seconds between 10 and 86400, got "1"/,
      ],
      [["sources", "add", "Bad Name", "--kind", "hackernews"], /NAME must be 1-64 lowercase letters/],
      [
        ["sources", "add", "se", "--kind", "stackexchange", "--settings", '{"site":"startups"}'],
        /a source named "se" already exists/,
      ],
    ];
    for (const [args, message] of cases) {
      const res = await runCli(args, env);
      assert.equal(res.code, 2, `${args.join(" ")}: ${res.stderr}`);
      assert.match(res.stderr, message);
    }
  });
});
