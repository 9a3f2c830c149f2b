/**
 * A recursive-descent parser for keyword monitor expressions, the language of Syften and F5Bot:
 *
 *   expr    := or
 *   or      := and ( "OR" and )*
 *   and     := unary ( [ "AND" ] unary )*        adjacent terms are ANDed
 *   unary   := ( "NOT" | "-" ) unary | primary
 *   primary := "(" or ")" | field ":" value | value
 *   value   := '"' phrase '"' | word [ "*" ]
 *   field   := subforum | author | source | title
 *
 * AND, OR and NOT are operators only in capitals, so "or" in lower case is an ordinary word.
 * Every error names the 1-based column it was found at.
 */

import { wordsOf } from "../core/keyword-words.js";
import type { KeywordField, KeywordNode } from "./keyword-ast.js";
import { KEYWORD_FIELDS } from "./keyword-ast.js";

/** Longest expression accepted, characters. */
export const MAX_EXPRESSION_LENGTH = 1_000;
/** Deepest nesting of parentheses and NOTs accepted. */
export const MAX_DEPTH = 32;

/** A syntax error at a column of the expression. */
export class KeywordSyntaxError extends Error {
  override readonly name = "KeywordSyntaxError";
  constructor(
    readonly column: number,
    readonly detail: string,
  ) {
    super(`${detail} at column ${column}`);
  }
}

type Token =
  | { kind: "(" | ")" | "AND" | "OR" | "NOT" | "-" | "end"; col: number }
  | { kind: "word"; col: number; text: string; prefix: boolean }
  | { kind: "phrase"; col: number; text: string }
  | { kind: "field"; col: number; field: KeywordField };

const SPECIAL = new Set(["(", ")", '"']);

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    const col = i + 1;
    if (/\s/u.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")") {
      tokens.push({ kind: ch, col });
      i++;
    } else if (ch === '"') {
      const close = src.indexOf('"', i + 1);
      if (close < 0) throw new KeywordSyntaxError(col, 'unterminated quote: add the closing "');
      tokens.push({ kind: "phrase", col, text: src.slice(i + 1, close) });
      i = close + 1;
    } else if (
      ch === "-" &&
      i + 1 < src.length &&
      !/\s/u.test(src[i + 1]!) &&
      (tokens.length === 0 || /[\s(]/u.test(src[i - 1]!))
    ) {
      // "-word" at the start of a term negates it; a hyphen inside a word stays part of it.
      tokens.push({ kind: "-", col });
      i++;
    } else {
      let j = i;
      while (j < src.length && !/\s/u.test(src[j]!) && !SPECIAL.has(src[j]!) && src[j] !== ":") j++;
      const text = src.slice(i, j);
      if (src[j] === ":") {
        const field = text.toLowerCase();
        if (!(KEYWORD_FIELDS as readonly string[]).includes(field)) {
          throw new KeywordSyntaxError(
            col,
            `unknown field "${text}:"; use ${KEYWORD_FIELDS.map((f) => `${f}:`).join(", ")}`,
          );
        }
        tokens.push({ kind: "field", col, field: field as KeywordField });
        i = j + 1;
        continue;
      }
      if (text === "AND" || text === "OR" || text === "NOT") tokens.push({ kind: text, col });
      else if (text.endsWith("*")) tokens.push({ kind: "word", col, text: text.slice(0, -1), prefix: true });
      else tokens.push({ kind: "word", col, text, prefix: false });
      i = j;
    }
  }
  tokens.push({ kind: "end", col: src.length + 1 });
  return tokens;
}

function describe(t: Token): string {
  switch (t.kind) {
    case "end":
      return "end of expression";
    case "word":
      return `"${t.text}${t.prefix ? "*" : ""}"`;
    case "phrase":
      return `"\\"${t.text}\\""`;
    case "field":
      return `"${t.field}:"`;
    default:
      return `"${t.kind}"`;
  }
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  parseAll(): KeywordNode {
    const node = this.or();
    const t = this.peek();
    if (t.kind === ")") throw new KeywordSyntaxError(t.col, 'unexpected ")" without a matching "("');
    if (t.kind !== "end") throw new KeywordSyntaxError(t.col, `unexpected ${describe(t)}`);
    return node;
  }

  private or(): KeywordNode {
    const children = [this.and()];
    while (this.peek().kind === "OR") {
      this.next();
      children.push(this.and());
    }
    return children.length === 1 ? children[0]! : { type: "or", children };
  }

  private and(): KeywordNode {
    const children = [this.unary()];
    for (;;) {
      const t = this.peek();
      if (t.kind === "AND") {
        this.next();
        children.push(this.unary());
      } else if (
        t.kind === "word" ||
        t.kind === "phrase" ||
        t.kind === "field" ||
        t.kind === "(" ||
        t.kind === "NOT" ||
        t.kind === "-"
      ) {
        children.push(this.unary());
      } else {
        break;
      }
    }
    return children.length === 1 ? children[0]! : { type: "and", children };
  }

  private unary(): KeywordNode {
    const t = this.peek();
    if (t.kind === "NOT" || t.kind === "-") {
      this.next();
      this.enter(t.col);
      const after = this.peek();
      if (after.kind === "end" || after.kind === ")" || after.kind === "AND" || after.kind === "OR") {
        throw new KeywordSyntaxError(
          after.col,
          `expected a term after ${t.kind === "-" ? '"-"' : "NOT"}, found ${describe(after)}`,
        );
      }
      const child = this.unary();
      this.depth--;
      return { type: "not", child };
    }
    return this.primary();
  }

  private enter(col: number): void {
    if (++this.depth > MAX_DEPTH) throw new KeywordSyntaxError(col, `nesting deeper than ${MAX_DEPTH} levels`);
  }

  private primary(): KeywordNode {
    const t = this.next();
    switch (t.kind) {
      case "(": {
        this.enter(t.col);
        if (this.peek().kind === ")")
          throw new KeywordSyntaxError(this.peek().col, 'empty parentheses: put a term between "(" and ")"');
        const inner = this.or();
        const close = this.next();
        if (close.kind !== ")")
          throw new KeywordSyntaxError(
            t.col,
            `missing ")" for the "(" here (found ${describe(close)} at column ${close.col})`,
          );
        this.depth--;
        return inner;
      }
      case "word":
      case "phrase":
        return this.term(t, "text");
      case "field": {
        const v = this.next();
        if (v.kind !== "word" && v.kind !== "phrase") {
          throw new KeywordSyntaxError(
            v.col,
            `expected a value after "${t.field}:", found ${describe(v)}; write ${t.field}:name or ${t.field}:"two words"`,
          );
        }
        if (t.field === "title") return this.term(v, "title");
        const value = v.kind === "word" ? v.text : v.text.trim();
        if (v.kind === "word" && v.prefix)
          throw new KeywordSyntaxError(v.col, `"${t.field}:" takes an exact value; "*" is allowed only on words`);
        if (value === "") throw new KeywordSyntaxError(v.col, `"${t.field}:" needs a non-empty value`);
        return { type: "field", field: t.field, value: value.toLowerCase() };
      }
      case "end":
        throw new KeywordSyntaxError(t.col, "expected a term, found end of expression");
      case ")":
        throw new KeywordSyntaxError(t.col, 'unexpected ")": expected a term');
      default:
        throw new KeywordSyntaxError(t.col, `expected a term before ${t.kind}, found ${describe(t)}`);
    }
  }

  private term(t: Token & { kind: "word" | "phrase" }, scope: "text" | "title"): KeywordNode {
    const words = wordsOf(t.text);
    if (words.length === 0) {
      throw new KeywordSyntaxError(
        t.col,
        t.kind === "phrase"
          ? "empty phrase: put at least one word between the quotes"
          : `${describe(t)} has no letters or digits to match`,
      );
    }
    // "node/js" or "a,b", several words typed without spaces, match as a phrase.
    return { type: "term", scope, words, prefix: t.kind === "word" && t.prefix };
  }
}

/** True when the node can match without any positive term (e.g. `NOT spam`), which would match nearly everything. */
function onlyNegative(node: KeywordNode): boolean {
  switch (node.type) {
    case "term":
    case "field":
      return false;
    case "not":
      return true;
    case "and":
      return node.children.every(onlyNegative);
    case "or":
      return node.children.some(onlyNegative);
  }
}

/**
 * Parses a keyword expression into its AST.
 * @throws KeywordSyntaxError naming the column of the first problem.
 */
export function parseKeywords(src: string): KeywordNode {
  if (src.length > MAX_EXPRESSION_LENGTH)
    throw new KeywordSyntaxError(
      MAX_EXPRESSION_LENGTH + 1,
      `the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
    );
  if (src.trim() === "") throw new KeywordSyntaxError(1, "the expression is empty");
  const node = new Parser(tokenize(src)).parseAll();
  if (onlyNegative(node)) {
    throw new KeywordSyntaxError(
      1,
      "the expression must require at least one term that is not negated (NOT alone would match nearly every post)",
    );
  }
  return node;
}
