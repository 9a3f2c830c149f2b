/**
 * Evaluates a keyword AST against one post, and picks the words an index can file a monitor
 * under (its anchors): a post can match only if it holds at least one of them.
 */

import { wordsOf } from "../core/keyword-words.js";
import type { KeywordNode, TermNode } from "./keyword-ast.js";

/** A post split once for every keyword monitor that looks at it. */
export interface KeywordSubject {
  titleWords: string[];
  /** Title words then content words. */
  textWords: string[];
  /** Every distinct word of title and content. */
  wordSet: Set<string>;
  subforum: string;
  author: string;
  source: string;
}

/** Splits a post's text for matching. */
export function keywordSubject(post: {
  title: string;
  content: string;
  subforum: string;
  author: string;
  source: string;
}): KeywordSubject {
  const titleWords = wordsOf(post.title);
  const textWords = [...titleWords, ...wordsOf(post.content)];
  return {
    titleWords,
    textWords,
    wordSet: new Set(textWords),
    subforum: post.subforum.toLowerCase(),
    author: post.author.toLowerCase(),
    source: post.source.toLowerCase(),
  };
}

function wordIs(actual: string, wanted: string, prefix: boolean): boolean {
  return prefix ? actual.startsWith(wanted) : actual === wanted;
}

function termMatches(term: TermNode, words: readonly string[]): boolean {
  const n = term.words.length;
  for (let i = 0; i + n <= words.length; i++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) ok = wordIs(words[i + k]!, term.words[k]!, term.prefix && k === n - 1);
    if (ok) return true;
  }
  return false;
}

/** True when the post satisfies the expression. */
export function matchesKeywords(node: KeywordNode, s: KeywordSubject): boolean {
  switch (node.type) {
    case "term":
      if (node.scope === "text" && !node.prefix && node.words.length === 1) return s.wordSet.has(node.words[0]!);
      return termMatches(node, node.scope === "title" ? s.titleWords : s.textWords);
    case "field":
      return s[node.field] === node.value;
    case "and":
      return node.children.every((c) => matchesKeywords(c, s));
    case "or":
      return node.children.some((c) => matchesKeywords(c, s));
    case "not":
      return !matchesKeywords(node.child, s);
  }
}

/** The leaves of the expression that matched, as the user wrote them, for "why it matched". */
export function matchedTerms(node: KeywordNode, s: KeywordSubject): string[] {
  switch (node.type) {
    case "term":
      return matchesKeywords(node, s)
        ? [
            `${node.scope === "title" ? "title:" : ""}${node.words.length > 1 ? `"${node.words.join(" ")}"` : node.words[0]}${node.prefix ? "*" : ""}`,
          ]
        : [];
    case "field":
      return matchesKeywords(node, s) ? [`${node.field}:${node.value}`] : [];
    case "and":
    case "or":
      return node.children.flatMap((c) => matchedTerms(c, s));
    case "not":
      return [];
  }
}

/**
 * Index keys a matching post must contain at least one of: "w:<word>" for a word of the text,
 * "p:<prefix>" for a word prefix, "f:<field>:<value>" for a field. `undefined` means the
 * expression has no such set (e.g. `a OR NOT b`) and must be tried on every post.
 */
export function anchorsOf(node: KeywordNode): string[] | undefined {
  switch (node.type) {
    case "term": {
      // The first word of a phrase is necessary; title words are words of the text as well.
      const first = node.words[0]!;
      return [node.prefix && node.words.length === 1 ? `p:${first}` : `w:${first}`];
    }
    case "field":
      return [`f:${node.field}:${node.value}`];
    case "not":
      return undefined;
    case "or": {
      const all: string[] = [];
      for (const c of node.children) {
        const a = anchorsOf(c);
        if (a === undefined) return undefined;
        all.push(...a);
      }
      return [...new Set(all)];
    }
    case "and": {
      // Any one child's anchors are necessary; the fewest keys give the fewest candidates.
      let best: string[] | undefined;
      for (const c of node.children) {
        const a = anchorsOf(c);
        if (a !== undefined && (best === undefined || a.length < best.length)) best = a;
      }
      return best;
    }
  }
}
