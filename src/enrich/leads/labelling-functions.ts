/**
 * The labelling functions of lead detection, kept as data: one JSON file per function under
 * src/enrich/leads/functions/, each holding its pattern, what it votes for (a lead type, "none"
 * for the rules that argue a post is no lead, "abstain" for a part other rules read), its weight,
 * why it is written so (`note`), and texts it must match (`fires`) and must not (`abstains`),
 * which test/enrich/leads-functions.test.ts checks. Files are read and compiled once, at first use.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../package-root.js";
import words from "./lf-words.json" with { type: "json" };
import type { Intent } from "./signals.js";

/** What a labelling function says when it matches. */
export type Vote = Intent | "none" | "abstain";

const VOTES: readonly Vote[] = [
  "solution_request",
  "advice_request",
  "comparison",
  "pain_point",
  "buying_intent",
  "none",
  "abstain",
];

/** One labelling function, compiled. */
export interface LabellingFunction {
  /** The file's name without `.json`, e.g. "buying-intent.looking-to-buy". */
  name: string;
  votes: Vote;
  /** How surely a match signals `votes` on its own (0..1); 1 for the rules that are not cues. */
  weight: number;
  /** Only a title may carry this cue. */
  titleOnly: boolean;
  /** A feature request: in a post promoting the poster's own product it asks nobody. */
  feature: boolean;
  re: RegExp;
  fires: readonly string[];
  abstains: readonly string[];
}

/** The folder of the function files. */
export const FUNCTIONS_DIR = path.join(PACKAGE_ROOT, "src", "enrich", "leads", "functions");

const KEYS = new Set(["votes", "weight", "titleOnly", "feature", "note", "pattern", "flags", "fires", "abstains"]);

/** `{name}` placeholders of a pattern, each the word list of lf-words.json as a group. */
function expand(pattern: string, file: string): string {
  return pattern.replace(/\{(\w+)\}/g, (_, key: string) => {
    const list = (words as Record<string, string[]>)[key];
    if (list === undefined) throw new Error(`${file}: pattern names {${key}}, which lf-words.json does not list`);
    return `(?:${list.join("|")})`;
  });
}

function texts(value: unknown, file: string, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((t) => typeof t === "string" && t !== ""))
    throw new Error(`${file}: ${field} must be a non-empty list of texts`);
  return value as string[];
}

/** Checks and compiles one parsed function file; a malformed one is refused naming the file and field. */
export function compileFunction(name: string, raw: unknown): LabellingFunction {
  const file = `${name}.json`;
  if (typeof raw !== "object" || raw === null) throw new Error(`${file}: must be a JSON object`);
  const f = raw as Record<string, unknown>;
  const extra = Object.keys(f).find((k) => !KEYS.has(k));
  if (extra !== undefined) throw new Error(`${file}: unknown field ${extra}`);
  if (!VOTES.includes(f.votes as Vote)) throw new Error(`${file}: votes must be one of ${VOTES.join(", ")}`);
  const weight = f.weight ?? 1;
  if (typeof weight !== "number" || !(weight > 0 && weight <= 1)) throw new Error(`${file}: weight must be in (0, 1]`);
  if (typeof f.pattern !== "string" || f.pattern === "") throw new Error(`${file}: pattern must be a regex source`);
  const flags = f.flags ?? "i";
  if (typeof flags !== "string" || /[gy]/.test(flags)) throw new Error(`${file}: flags must not hold g or y`);
  return {
    name,
    votes: f.votes as Vote,
    weight,
    titleOnly: f.titleOnly === true,
    feature: f.feature === true,
    re: new RegExp(expand(f.pattern, file), flags),
    fires: texts(f.fires, file, "fires"),
    abstains: texts(f.abstains, file, "abstains"),
  };
}

let loaded: ReadonlyMap<string, LabellingFunction> | undefined;

/** Every labelling function, by name, in file-name order. */
export function labellingFunctions(): ReadonlyMap<string, LabellingFunction> {
  loaded ??= new Map(
    readdirSync(FUNCTIONS_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => {
        const name = f.slice(0, -".json".length);
        return [name, compileFunction(name, JSON.parse(readFileSync(path.join(FUNCTIONS_DIR, f), "utf8")))] as const;
      }),
  );
  return loaded;
}

/** The pattern of the function `name`; throws when no file holds it, so a renamed file fails at load. */
export function patternOf(name: string): RegExp {
  const fn = labellingFunctions().get(name);
  if (fn === undefined) throw new Error(`no labelling function ${name} in ${FUNCTIONS_DIR}`);
  return fn.re;
}

/**
 * The examples a function gets wrong: `fires` texts it does not match and `abstains` texts it
 * does. A cue reads sentences after `see` has cleaned them (text.ts `clean`), so its examples are
 * read the same way; the rejection patterns read the raw title and body.
 */
export function exampleFailures(fn: LabellingFunction, see: (text: string) => string): string[] {
  const read = fn.votes === "none" || fn.votes === "abstain" ? (t: string) => t : see;
  return [
    ...fn.fires.filter((t) => !fn.re.test(read(t))).map((t) => `${fn.name} should fire on ${JSON.stringify(t)}`),
    ...fn.abstains.filter((t) => fn.re.test(read(t))).map((t) => `${fn.name} should not fire on ${JSON.stringify(t)}`),
  ];
}
