/**
 * The gazetteer of named products: tools forum posters ask about, kept as data in
 * products/products.json (a canonical name, its aliases, the kind of thing it is, and two flags),
 * matched case-insensitively on word boundaries and reported with the canonical spelling.
 * product.ts looks for them in a post's focus sentence and title; replaced.ts in the place of the
 * thing a post wants replaced; the product tagger (products/tagger.ts) reads a match as a feature.
 *
 * The matcher is one regular expression over every name and alias, longest first, rather than an
 * Aho-Corasick automaton: the list is small, and the lead prefilter (literals.ts) reads the
 * trigrams a post must hold straight from a pattern's source, so a pattern keeps that skip.
 */
import raw from "./products/products.json" with { type: "json" };

/** One product of products.json. */
export interface GazetteerEntry {
  /** The spelling reported. */
  name: string;
  /** Other spellings that mean the same product ("AdWords" for Google AdWords). */
  aliases: readonly string[];
  /** The kind of thing it is ("CRM", "web hosting"), in the labels' words. */
  category: string;
  /**
   * Its name is also an everyday word ("lots of windows open", "the outlook for 2013", "excel at
   * sales"): a match counts only written with a capital.
   */
  capitalised?: boolean;
  /**
   * Other things run on it: before a kind of thing it only says which one ("a Linux laptop", "a
   * cheap Windows VPS", "an Excel timesheet"), where a vendor's name before its own kind stays the
   * product ("Highrise CRM").
   */
  platform?: boolean;
}

/** Checks the parsed products.json: every field typed, no spelling listed twice. */
export function checkGazetteer(value: unknown): GazetteerEntry[] {
  const products = (value as { products?: unknown }).products;
  if (!Array.isArray(products)) throw new Error("products.json: expected { products: [...] }");
  const seen = new Map<string, string>();
  return products.map((p: Partial<GazetteerEntry>, i) => {
    const at = `products.json: products[${i}]`;
    if (typeof p.name !== "string" || p.name.trim() === "") throw new Error(`${at}: name must be a non-empty string`);
    if (!Array.isArray(p.aliases) || p.aliases.some((a) => typeof a !== "string" || a.trim() === ""))
      throw new Error(`${at} (${p.name}): aliases must be a list of non-empty strings`);
    if (typeof p.category !== "string" || p.category.trim() === "")
      throw new Error(`${at} (${p.name}): category must be a non-empty string`);
    for (const spelling of [p.name, ...p.aliases]) {
      const key = foldName(spelling);
      const other = seen.get(key);
      if (other !== undefined) throw new Error(`${at}: "${spelling}" is listed twice (also under ${other})`);
      seen.set(key, p.name);
    }
    return p as GazetteerEntry;
  });
}

/** A spelling as the gazetteer compares it: lower case, runs of blanks as one space. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/\s+/g, " ").trim();
}

/** The committed gazetteer, validated once at load. */
export const GAZETTEER: readonly GazetteerEntry[] = checkGazetteer(raw);

const BY_SPELLING = new Map(GAZETTEER.flatMap((e) => [e.name, ...e.aliases].map((s) => [foldName(s), e] as const)));
const CAPITALISED = new Set(GAZETTEER.filter((e) => e.capitalised).map((e) => e.name));

/** "windows" in lower case still counts before a version, as people type it ("windows 7", "windows xp"). */
const WINDOWS_VERSION = /^\s+(?:xp|vista|me|nt|rt|server|phone|\d)/i;

/** Every name and alias, longest first so "Google Analytics" wins over a shorter name inside it. */
export const PRODUCT_RE = new RegExp(
  `(?<![\\w.])(?:${[...BY_SPELLING.keys()]
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map((name) => name.replace(/[.+]/g, "\\$&").replace(/ /g, "\\s+"))
    .join("|")})(?![\\w])`,
  "i",
);
/** The same, for walking every match of a sentence (matchAll copies it, so no state is shared). */
const PRODUCT_SCAN = new RegExp(PRODUCT_RE.source, "gi");

/**
 * The words that end the gazetteer's categories ("software", "tool", "hosting", "app"): the heads
 * of the kinds of things posts ask for, which the tagger reads as a feature.
 */
export const KIND_WORDS: ReadonlySet<string> = new Set(
  GAZETTEER.map((e) => e.category.toLowerCase().split(" ").at(-1)!).filter((w) => w.length > 2),
);

/** Canonical names of the products other things run on (see {@link GazetteerEntry.platform}). */
export const PLATFORMS: ReadonlySet<string> = new Set(GAZETTEER.filter((e) => e.platform).map((e) => e.name));

/** The gazetteer's entry for `name` (its canonical name or an alias, any case), or undefined. */
export function gazetteerEntry(name: string): GazetteerEntry | undefined {
  return BY_SPELLING.get(foldName(name));
}

/** The gazetteer's spelling of `name` (any case, spaces collapsed, aliases resolved), or undefined when it is not listed. */
export function canonicalProduct(name: string): string | undefined {
  return gazetteerEntry(name)?.name;
}

/** The gazetteer, for stepping through a list from one name on (lastIndex set per call; the walk is synchronous). */
const LIST_SCAN = new RegExp(PRODUCT_RE.source, "gi");

/** What stands between two names of one list: a comma, "&", "/", "and" or "or" (", and"). */
const LIST_SEPARATOR = /^\s*(?:,\s*(?:(?:and|or|&)\s+)?|[&/]\s*|(?:and|or)\s+)$/i;

/**
 * How many listed names follow the name that ends at `end` of `text` as items of one list:
 * 3 after Facebook in "onto Facebook, Twitter, Pinterest & Instagram", 1 after Trello in "Trello
 * or Asana?", 0 when the name stands alone.
 */
export function namesListedAfter(text: string, end: number): number {
  const scan = LIST_SCAN;
  scan.lastIndex = end;
  let n = 0;
  let from = end;
  for (let m = scan.exec(text); m !== null && LIST_SEPARATOR.test(text.slice(from, m.index)); m = scan.exec(text)) {
    n++;
    from = m.index + m[0].length;
  }
  return n;
}

/** One product named in a text: its canonical name and where the spelling stands. */
export interface ProductMention {
  name: string;
  start: number;
  end: number;
}

/**
 * Every listed product named in `text` as a name, in order: a name that is also a word counts
 * only written with a capital (or "windows" before a version).
 */
export function productMentions(text: string): ProductMention[] {
  const out: ProductMention[] = [];
  for (const m of text.matchAll(PRODUCT_SCAN)) {
    const entry = BY_SPELLING.get(foldName(m[0]));
    if (entry === undefined) continue;
    const lowercase = m[0][0] === m[0][0]!.toLowerCase();
    if (
      CAPITALISED.has(entry.name) &&
      lowercase &&
      !(entry.name === "Windows" && WINDOWS_VERSION.test(text.slice(m.index + m[0].length)))
    )
      continue;
    out.push({ name: entry.name, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The first listed product named in `text` as a name, with where it stands; undefined when none. */
export function namedProductAt(text: string): ProductMention | undefined {
  return productMentions(text)[0];
}
