/**
 * The keyword side of the percolator: monitors filed under their anchor keys (words, word
 * prefixes, field values), so a post is checked only against monitors that share a key with it
 * instead of against every monitor.
 */
import type { KeywordNode } from "./keyword-ast.js";
import type { KeywordSubject } from "./keyword-match.js";
import { anchorsOf, matchesKeywords } from "./keyword-match.js";

/** Shortest prefix kept in the prefix table; shorter `w*` prefixes are tried on every post. */
const PREFIX_TABLE_MIN = 2;

/** Keyword monitors indexed by anchor; rebuilt when the set of active monitors changes. */
export class KeywordIndex {
  private readonly byKey = new Map<string, string[]>();
  /** Prefix anchors by their first PREFIX_TABLE_MIN characters. */
  private readonly byPrefix = new Map<string, { prefix: string; id: string }[]>();
  private readonly always: string[] = [];
  private readonly ast = new Map<string, KeywordNode>();

  /** Files a monitor's expression under its anchors. */
  add(id: string, node: KeywordNode): void {
    this.ast.set(id, node);
    const anchors = anchorsOf(node);
    if (anchors === undefined) {
      this.always.push(id);
      return;
    }
    for (const key of anchors) {
      if (key.startsWith("p:")) {
        const prefix = key.slice(2);
        if (prefix.length < PREFIX_TABLE_MIN) {
          this.always.push(id);
          continue;
        }
        const head = prefix.slice(0, PREFIX_TABLE_MIN);
        const list = this.byPrefix.get(head) ?? [];
        list.push({ prefix, id });
        this.byPrefix.set(head, list);
      } else {
        const list = this.byKey.get(key) ?? [];
        list.push(id);
        this.byKey.set(key, list);
      }
    }
  }

  /** Number of monitors indexed. */
  get size(): number {
    return this.ast.size;
  }

  /** Ids of the monitors whose expression the post satisfies. */
  match(s: KeywordSubject): string[] {
    const candidates = new Set<string>(this.always);
    const add = (key: string): void => {
      for (const id of this.byKey.get(key) ?? []) candidates.add(id);
    };
    for (const w of s.wordSet) {
      add(`w:${w}`);
      if (this.byPrefix.size > 0 && w.length >= PREFIX_TABLE_MIN) {
        for (const p of this.byPrefix.get(w.slice(0, PREFIX_TABLE_MIN)) ?? [])
          if (w.startsWith(p.prefix)) candidates.add(p.id);
      }
    }
    add(`f:subforum:${s.subforum}`);
    add(`f:author:${s.author}`);
    add(`f:source:${s.source}`);
    const out: string[] = [];
    for (const id of candidates) if (matchesKeywords(this.ast.get(id)!, s)) out.push(id);
    return out;
  }
}
