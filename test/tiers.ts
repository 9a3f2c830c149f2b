/**
 * Sorts the test files into the two tiers by one rule, read from the source so that a new test
 * lands in the right tier without a list to keep. A test file is in the full tier ("slow") when
 * it, or any module under test/ or src/ it imports (followed transitively), does one of:
 *   - imports the test harness (test/harness/: PostgreSQL, Redis, Weaviate, the whole service);
 *   - imports the wiring that listens (src/main.ts, src/server.ts) or starts a listener itself
 *     (`createServer`, `.listen(`), or spawns a process (`node:child_process`);
 *   - drives a browser (playwright-core) or reads the shared data (../shared/data);
 *   - loads the bundled sentence encoder (src/enrich/use-onnx/, create-embedder) or opens an
 *     embedded LanceDB index (@lancedb/lancedb), which cost seconds per file.
 * Everything else is a unit test that needs no server: the fast tier, `npm test`.
 *
 * Usage: node --import tsx test/tiers.ts fast|all|slow  (prints one path per line)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), "..");

/** Source patterns that put a module (and every test importing it) in the full tier. */
const SLOW_MARKERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/from\s+["'][^"']*\/harness\/[^"']+["']/, "imports test/harness"],
  [/from\s+["'][^"']*src\/(main|server)\.js["']/, "imports the listening wiring"],
  [/\bcreateServer\s*\(|\.listen\s*\(/, "starts a listener"],
  [/["']node:child_process["']/, "spawns a process"],
  [/["']playwright-core["']/, "drives a browser"],
  [/shared\/data|shared-data\.js|SHARED_DATA/, "reads the shared data"],
  [/["']@lancedb\/lancedb["']|lancedb-index\.js|open-index\.js/, "opens a LanceDB index"],
  [/use-onnx\/|create-embedder\.js|use-embedder\.js|use-worker\.js/, "loads the sentence encoder"],
];

const IMPORT_RE =
  /(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Every *.test.ts under test/, sorted, as paths relative to the repository. */
export function allTestFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules") continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".test.ts")) out.push(path.relative(ROOT, full));
    }
  };
  walk(path.join(ROOT, "test"));
  return out.sort();
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Why a file is in the full tier, or undefined when it is fast. Memoised over the import graph. */
export function slowReason(file: string, seen = new Map<string, string | null>()): string | undefined {
  const abs = path.resolve(ROOT, file);
  if (seen.has(abs)) return seen.get(abs) ?? undefined;
  seen.set(abs, null); // cycles resolve as fast; the other path reports the marker
  if (abs === SELF) return undefined; // this file names every marker in its own rule
  const text = readFileSync(abs, "utf8");
  for (const [re, why] of SLOW_MARKERS) {
    if (re.test(text)) {
      const reason = `${path.relative(ROOT, abs)} ${why}`;
      seen.set(abs, reason);
      return reason;
    }
  }
  for (const m of text.matchAll(IMPORT_RE)) {
    const target = resolveImport(abs, m[1] ?? m[2] ?? "");
    if (!target) continue;
    const reason = slowReason(target, seen);
    if (reason) {
      seen.set(abs, reason);
      return reason;
    }
  }
  return undefined;
}

/** The test files of a tier: "fast" (no server), "slow" (the rest) or "all". */
export function tierFiles(tier: "fast" | "slow" | "all"): string[] {
  const files = allTestFiles();
  if (tier === "all") return files;
  const seen = new Map<string, string | null>();
  return files.filter((f) => (slowReason(f, seen) === undefined) === (tier === "fast"));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tier = process.argv[2];
  if (tier !== "fast" && tier !== "slow" && tier !== "all" && tier !== "why") {
    process.stderr.write("usage: tiers.ts fast|slow|all|why\n");
    process.exit(2);
  }
  if (tier === "why") {
    const seen = new Map<string, string | null>();
    for (const f of allTestFiles()) process.stdout.write(`${f}\t${slowReason(f, seen) ?? "fast"}\n`);
  } else {
    for (const f of tierFiles(tier)) process.stdout.write(`${f}\n`);
  }
}
