/**
 * Literal prefilters for the lead rules' regexes. Most of the ~100 patterns match nowhere in a
 * post, yet each one scanned the whole text to find that out; that was most of the classifier's
 * CPU. Every pattern is read once here for the literal strings a match must contain (clauses: one
 * literal of each), and a pattern only runs on a text that may contain them. The text's trigrams
 * go into a small bit table once per text; a literal may occur only if all its trigrams do, which
 * a few bit reads tell, where the regex engine scans the whole text for every pattern.
 *
 * Conservative by construction: a piece of pattern contributes a literal only where every match
 * of it consumes exactly those characters (optional parts, classes, lookarounds and anchors
 * contribute none, and an alternation needs a literal from every branch). Literals are lower-cased
 * and looked for in the lower-cased text: they are ASCII (clauses with any other character are
 * dropped), and with or without the `i` flag an ASCII character only ever matches an ASCII one
 * that lower-cases to the same letter. Hash collisions only let more texts through.
 * test/enrich/leads-prefilter.test.ts checks "match implies literals" on crafted and real texts.
 */

/** Any-of sets of literals, all of which a match satisfies (an empty list requires nothing). */
type Clauses = readonly (readonly string[])[];

/** Escapes that stand for one literal character (anything else after a backslash is a class or an assertion). */
const LITERAL_ESCAPE = /[$()*+./?[\\\]^{|}\-'"#&!:<=>@%,;~`]/;

/** How much a clause narrows: its shortest literal, longer is rarer; then fewer alternatives. */
function rank(a: readonly string[], b: readonly string[]): number {
  const minA = Math.min(...a.map((s) => s.length));
  const minB = Math.min(...b.map((s) => s.length));
  return minA !== minB ? minB - minA : a.length - b.length;
}

/** Clauses checked per pattern: the most narrowing few; more cost more than they save. */
const MAX_CLAUSES = 3;

/** Recursive-descent reader over a regex source (the subset the lead rules use). */
class Reader {
  private at = 0;
  constructor(private readonly src: string) {}

  /**
   * Alternation: a single branch keeps all its clauses; several give one clause, the union of
   * each branch's best (every branch must have one, or nothing is required).
   */
  alternation(): Clauses {
    const branches: Clauses[] = [this.sequence()];
    while (this.src[this.at] === "|") {
      this.at++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0]!;
    if (branches.some((b) => b.length === 0)) return [];
    return [[...new Set(branches.flatMap((b) => b[0]!))]];
  }

  /** Sequence: every run of literal characters and every required group is a clause; best first. */
  private sequence(): Clauses {
    const clauses: (readonly string[])[] = [];
    let run = "";
    const endRun = (): void => {
      if (run !== "") clauses.push([run]);
      run = "";
    };
    while (this.at < this.src.length && this.src[this.at] !== "|" && this.src[this.at] !== ")") {
      const atom = this.atom();
      const q = this.quantifier();
      if (q === "once" && atom.char !== undefined) {
        run += atom.char;
        continue;
      }
      // Anything else ends the run. A group (once or repeated) still requires its clauses, and a
      // repeated character itself; an optional piece requires nothing.
      endRun();
      if (q !== "optional") clauses.push(...(atom.char !== undefined ? [[atom.char]] : atom.need));
    }
    endRun();
    return clauses.sort(rank);
  }

  /** One atom: a literal character (`char`), or a group/class/assertion with what it requires. */
  private atom(): { char?: string; need: Clauses } {
    const c = this.src[this.at]!;
    if (c === "(") {
      this.at++;
      let lookaround = false;
      if (this.src.startsWith("?:", this.at)) this.at += 2;
      else if (/^\?<?[=!]/.test(this.src.slice(this.at, this.at + 3))) {
        lookaround = true;
        this.at += this.src[this.at + 1] === "<" ? 3 : 2;
      } else if (this.src[this.at] === "?") throw new Error(`unsupported group at ${this.at} in /${this.src}/`);
      const need = this.alternation();
      if (this.src[this.at] !== ")") throw new Error(`unbalanced group in /${this.src}/`);
      this.at++;
      // A lookaround consumes nothing of the match; it is simply not relied on.
      return { need: lookaround ? [] : need };
    }
    if (c === "[") {
      this.at++;
      if (this.src[this.at] === "]") this.at++;
      while (this.src[this.at] !== "]") this.at += this.src[this.at] === "\\" ? 2 : 1;
      this.at++;
      return { need: [] };
    }
    if (c === "\\") {
      const e = this.src[this.at + 1]!;
      this.at += 2;
      return LITERAL_ESCAPE.test(e) ? { char: e.toLowerCase(), need: [[e.toLowerCase()]] } : { need: [] };
    }
    this.at++;
    if (c === "." || c === "^" || c === "$") return { need: [] };
    if (/[*+?{]/.test(c)) throw new Error(`quantifier without atom at ${this.at} in /${this.src}/`);
    return { char: c.toLowerCase(), need: [[c.toLowerCase()]] };
  }

  /** Reads a quantifier after an atom: none, one or more times ("+", {n,} with n >= 1), or maybe never ("?", "*", {0,}). */
  private quantifier(): "once" | "repeated" | "optional" {
    const c = this.src[this.at];
    let kind: "repeated" | "optional";
    if (c === "?" || c === "*") kind = "optional";
    else if (c === "+") kind = "repeated";
    else if (c === "{") {
      const m = /^\{(\d+)(?:,\d*)?\}/.exec(this.src.slice(this.at));
      if (!m) throw new Error(`bad brace at ${this.at} in /${this.src}/`);
      this.at += m[0].length - 1;
      kind = Number(m[1]) === 0 ? "optional" : "repeated";
    } else return "once";
    this.at++;
    if (this.src[this.at] === "?") this.at++;
    return kind;
  }
}

/**
 * Literal clauses of `re`: every match contains, for each clause, at least one of its literals
 * (lower-cased). An empty list when the pattern has none to rely on. Throws on syntax outside the
 * supported subset, so a new rule written with it fails loudly at load time, not filtered wrongly.
 */
export function requiredLiterals(re: RegExp): Clauses {
  if (re.flags.includes("u") || re.flags.includes("v")) return [];
  const ascii = (l: string): boolean => /^[\x00-\x7f]*$/.test(l);
  return new Reader(re.source)
    .alternation()
    .filter((clause) => clause.every(ascii))
    .slice(0, MAX_CLAUSES);
}

/**
 * Trigram table size: 2^14 bits (2 KiB, made per post). A post's few hundred trigrams fill ~4% of
 * it; a hash collision only lets a literal through, never stops one.
 */
const TABLE_LOG2 = 14;

function trigramHash(a: number, b: number, c: number): number {
  return Math.imul(a * 961 + b * 31 + c, 0x9e3779b1) >>> (32 - TABLE_LOG2);
}

/** Pairs share the table, hashed as a triple whose third code no UTF-16 unit has. */
const PAIR = 0x10000;

/**
 * A clause's literals as their trigram hashes (a two-character literal: its pair's; a single
 * character has none, so it always passes).
 */
type CompiledClause = readonly Int32Array[];

/**
 * The trigrams (and character pairs) of one text, lower-cased, in a bit table. A literal can occur
 * in the text only if all its trigrams do; checking that is a few bit reads per literal, where the
 * regex scans the whole text. Collisions only let more through: the check stays conservative.
 */
export class Trigrams {
  private readonly bits = new Uint32Array(1 << (TABLE_LOG2 - 5));

  constructor(text: string) {
    const lower = text.toLowerCase();
    const bits = this.bits;
    let a = -1;
    let b = lower.charCodeAt(0);
    for (let i = 1; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      const p = trigramHash(b, c, PAIR);
      bits[p >>> 5]! |= 1 << (p & 31);
      if (a >= 0) {
        const h = trigramHash(a, b, c);
        bits[h >>> 5]! |= 1 << (h & 31);
      }
      a = b;
      b = c;
    }
  }

  private hasAll(hashes: Int32Array): boolean {
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i]!;
      if ((this.bits[h >>> 5]! & (1 << (h & 31))) === 0) return false;
    }
    return true;
  }

  /** False only when some clause has no literal whose trigrams all occur: then no match is possible. */
  mayMatch(clauses: readonly CompiledClause[]): boolean {
    for (const clause of clauses) {
      let found = false;
      for (const hashes of clause) {
        if (this.hasAll(hashes)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }
}

/** `re`'s literal clauses as trigram hashes, for {@link Trigrams.mayMatch}. */
export function compileLiterals(re: RegExp): readonly CompiledClause[] {
  return requiredLiterals(re).map((clause) =>
    clause.map((l) => {
      if (l.length === 2) return Int32Array.of(trigramHash(l.charCodeAt(0), l.charCodeAt(1), PAIR));
      const out = new Int32Array(Math.max(0, l.length - 2));
      for (let i = 0; i + 2 < l.length; i++)
        out[i] = trigramHash(l.charCodeAt(i), l.charCodeAt(i + 1), l.charCodeAt(i + 2));
      return out;
    }),
  );
}
