/**
 * The guides' commands, checked as written. Every line of a `sh`/`bash` block in docs/guides/
 * is read: a `threadsight` command must exist and take every option the line gives it (as its
 * own --help, rendered in docs/reference/cli.md, says); `npm run X` must be a script of
 * package.json; `bash scripts/X` a file; a `VAR=value` prefix a variable of the configuration
 * reference; a curl call a route of the OpenAPI document, its JSON body a valid request message
 * of that route's RPC. Then the commands that only touch the stores (sources, keys, accounts,
 * plans) run, in order, against a fresh data directory, and each must succeed. Long-running ones
 * (serve, sync) and lines with a placeholder (`...`, or an `@example.` address standing for a
 * portal user's) are checked but not run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import type { DescService } from "@bufbuild/protobuf";
import { fromJsonString } from "@bufbuild/protobuf";
import { EVENT_STREAM_PATH } from "../../src/gateway/event-stream.js";
import { PACKAGE_ROOT } from "../../src/package-root.js";

const CLI_FROM_SOURCE = "node --import tsx test/harness/cli-entry.ts";

/** One command line of a guide, with where it came from. */
interface GuideLine {
  file: string;
  text: string;
}

/**
 * The command lines of a shell block: backslash continuations joined, newlines inside quotes
 * kept in the line, comments (a `#` starting a word outside quotes) and blank lines dropped.
 */
export function commandLines(body: string): string[] {
  const lines: string[] = [];
  let cur = "";
  let quote: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      cur += c;
    } else if (c === "\\" && body[i + 1] === "\n") {
      i++;
    } else if (c === "\n") {
      lines.push(cur);
      cur = "";
    } else if (c === "#" && (cur === "" || /\s$/.test(cur))) {
      while (i + 1 < body.length && body[i + 1] !== "\n") i++;
    } else {
      if (c === "'" || c === '"') quote = c;
      cur += c;
    }
  }
  lines.push(cur);
  return lines.map((l) => l.replace(/\s+/g, " ").trim()).filter((l) => l !== "");
}

/** Splits a command line into words the way the shell would for the quoting the guides use. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let quote: string | undefined;
  let inWord = false;
  for (const c of line) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

async function guideLines(): Promise<GuideLine[]> {
  const dir = path.join(PACKAGE_ROOT, "docs", "guides");
  const out: GuideLine[] = [];
  for (const name of (await readdir(dir)).filter((f) => f.endsWith(".md")).sort()) {
    const md = await readFile(path.join(dir, name), "utf8");
    for (const m of md.matchAll(/^```(sh|bash)\n([\s\S]*?)^```$/gm)) {
      for (const text of commandLines(m[2] ?? "")) out.push({ file: `docs/guides/${name}`, text });
    }
  }
  return out;
}

/** The words after `threadsight` (or `node bin/threadsight.js`, `npx threadsight`), if the line runs it. */
function threadsightArgs(words: readonly string[]): string[] | undefined {
  const rest = words.filter((w) => !/^[A-Z][A-Z0-9_]*=/.test(w));
  if (rest[0] === "threadsight") return rest.slice(1);
  if (rest[0] === "npx" && rest[1] === "threadsight") return rest.slice(2);
  if (rest[0] === "node" && rest[1] === "bin/threadsight.js") return rest.slice(2);
  return undefined;
}

/** Each command's help text, from the generated CLI reference. */
async function helpByCommand(): Promise<Map<string, string>> {
  const md = await readFile(path.join(PACKAGE_ROOT, "docs", "reference", "cli.md"), "utf8");
  const help = new Map<string, string>();
  for (const m of md.matchAll(/^## (\S+)\n\n```text\n([\s\S]*?)^```$/gm)) help.set(m[1] ?? "", m[2] ?? "");
  return help;
}

/** Every served service, by fully-qualified name, from the generated code. */
async function services(): Promise<Map<string, DescService>> {
  const dir = path.join(PACKAGE_ROOT, "gen", "threadsight", "v1");
  const found = new Map<string, DescService>();
  for (const name of (await readdir(dir)).filter((f) => f.endsWith("_pb.ts"))) {
    const mod = (await import(path.join(dir, name))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const s = value as Partial<DescService>;
      if (s?.kind === "service" && typeof s.typeName === "string") found.set(s.typeName, s as DescService);
    }
  }
  return found;
}

test("every command line of the guides names real commands, options, scripts, variables and routes", async () => {
  const lines = await guideLines();
  assert.ok(lines.length >= 20, `found only ${lines.length} command lines in docs/guides`);
  const help = await helpByCommand();
  const pkg = JSON.parse(await readFile(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const configRef = await readFile(path.join(PACKAGE_ROOT, "docs", "reference", "configuration.md"), "utf8");
  const openapi = JSON.parse(
    await readFile(path.join(PACKAGE_ROOT, "gen", "openapi", "threadsight.openapi.json"), "utf8"),
  ) as { paths: Record<string, Record<string, { description?: string }>> };
  const svc = await services();
  let checked = 0;

  for (const { file, text } of lines) {
    const where = `${file}: ${text}`;
    const words = shellWords(text);
    for (const w of words) {
      const env = /^([A-Z][A-Z0-9_]*)=/.exec(w);
      if (env && words.indexOf(w) < words.findIndex((x) => !/^[A-Z][A-Z0-9_]*=/.test(x))) {
        assert.ok(configRef.includes(`\`${env[1]}\``), `${where}: ${env[1]} is not in docs/reference/configuration.md`);
      }
    }
    const args = threadsightArgs(words);
    if (args !== undefined) {
      const [command] = args;
      const text = help.get(command ?? "");
      assert.ok(text !== undefined, `${where}: no command "${command}" in docs/reference/cli.md`);
      for (const a of args.slice(1)) {
        if (a.startsWith("--")) {
          const flag = a.split("=")[0] ?? a;
          assert.ok(text.includes(flag), `${where}: "${command}" takes no ${flag} (see its --help)`);
        }
      }
      const sub = args[1];
      if (sub !== undefined && !sub.startsWith("-") && /^\s*(usage: )?threadsight \S+ [a-z-]+[ |]/m.test(text)) {
        assert.ok(
          new RegExp(`threadsight ${command} ${sub}\\b`).test(text),
          `${where}: "${command}" has no subcommand "${sub}"`,
        );
      }
      checked++;
    }
    if (words[0] === "npm" && words[1] === "run") {
      assert.ok(pkg.scripts[words[2] ?? ""] !== undefined, `${where}: package.json has no script "${words[2]}"`);
      checked++;
    }
    const script = words.find((w) => w.startsWith("scripts/"));
    if (script !== undefined) {
      assert.ok(existsSync(path.join(PACKAGE_ROOT, script)), `${where}: ${script} does not exist`);
      checked++;
    }
    if (words[0] === "curl") {
      const url = words.find((w) => /^(https?:\/\/)?(localhost|127\.0\.0\.1)[:/]/.test(w));
      assert.ok(url !== undefined, `${where}: curl without a loopback URL`);
      const route = new URL(/^https?:/.test(url) ? url : `http://${url}`).pathname;
      const data = words[words.findIndex((w) => w === "-d" || w === "--data") + 1];
      const method = data !== undefined && words.includes("-d") ? "post" : "get";
      // The monitor event stream (Server-Sent Events) is a route of its own, outside the document.
      const eventStream = new RegExp(`^${EVENT_STREAM_PATH.replace(/:[a-z_]+/g, "[^/]+")}$`);
      if (method === "get" && eventStream.test(route)) {
        checked++;
        continue;
      }
      if (route.startsWith("/api/v1/") && route !== "/api/v1/openapi.json") {
        const op = openapi.paths[route]?.[method];
        assert.ok(op !== undefined, `${where}: the OpenAPI document has no ${method.toUpperCase()} ${route}`);
        const rpc = /gRPC: `([\w.]+)\/(\w+)`/.exec(op.description ?? "");
        assert.ok(rpc, `${where}: ${route} names no RPC`);
        const m = svc.get(rpc[1] ?? "")?.methods.find((x) => x.name === rpc[2]);
        assert.ok(m, `${where}: no RPC ${rpc[1]}/${rpc[2]} in gen/`);
        if (method === "post" && data !== undefined) {
          assert.doesNotThrow(() => fromJsonString(m.input, data), `${where}: the body is not a ${m.input.typeName}`);
        }
      }
      checked++;
    }
  }
  assert.ok(checked >= 20, `only ${checked} lines were checkable`);
});

function runBash(script: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd: PACKAGE_ROOT, env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

test("the guides' store commands run as written on a fresh data directory", async () => {
  const runnable = (await guideLines()).filter(({ text }) => {
    const args = threadsightArgs(shellWords(text));
    if (args === undefined || text.includes("...") || /@example\./.test(text)) return false;
    return ["sources", "keys", "accounts", "plans"].includes(args[0] ?? "");
  });
  assert.ok(runnable.length >= 8, `expected the sources and keys blocks, found ${runnable.length} lines`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "threadsight-guides-"));
  try {
    for (const { file, text } of runnable) {
      const script = `threadsight() { ${CLI_FROM_SOURCE} "$@"; }\nnpx() { shift; threadsight "$@"; }\n${text}`;
      const { code, out } = await runBash(script, { THREADSIGHT_DATA_DIR: dataDir, DATABASE_URL: "" });
      assert.equal(code, 0, `${file}: \`${text}\` exited ${code}:\n${out}`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("command lines are split as the shell splits them", () => {
  assert.deepEqual(commandLines("a \\\n  b # note\n\n# only a comment\nc"), ["a b", "c"]);
  assert.deepEqual(shellWords(`x --settings '{"a": "b c"}' "d e" f`), ["x", "--settings", '{"a": "b c"}', "d e", "f"]);
  assert.deepEqual(threadsightArgs(["FOO=1", "node", "bin/threadsight.js", "serve"]), ["serve"]);
});
