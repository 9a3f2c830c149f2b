/**
 * What a theme is about, as a short phrase: its most distinctive word pair or words. A term is
 * distinctive when it is in many of the theme's posts and few of the other themes' posts; the
 * query's own words are left out (every theme shares them, so they tell themes apart by nothing).
 * Each term is shown as its commonest written form in the theme, so the label's words can be
 * found in the posts it describes.
 */
import { termTokens } from "./text-units.js";

/** What the label is made from: each post's title and body. */
export interface LabelledText {
  title: string;
  content: string;
}

interface Gram {
  /** Stem key: one stem, or two joined by a space. */
  key: string;
  /** Written forms seen, with counts. */
  forms: Map<string, number>;
}

/** The unigrams and adjacent-word bigrams of one post, keyed by stem. */
function grams(text: LabelledText, skip: ReadonlySet<string>): Map<string, Gram> {
  const out = new Map<string, Gram>();
  const add = (key: string, form: string) => {
    const g = out.get(key) ?? { key, forms: new Map<string, number>() };
    g.forms.set(form, (g.forms.get(form) ?? 0) + 1);
    out.set(key, g);
  };
  for (const part of [text.title, text.content]) {
    const tokens = termTokens(part);
    tokens.forEach((t, i) => {
      if (skip.has(t.stem) || /^\d+$/.test(t.word)) return;
      add(t.stem, t.word);
      const next = tokens[i + 1];
      if (next !== undefined && !skip.has(next.stem) && !/^\d+$/.test(next.word) && next.stem !== t.stem)
        add(`${t.stem} ${next.stem}`, `${t.word} ${next.word}`);
    });
  }
  return out;
}

function commonest(forms: ReadonlyMap<string, number>): string {
  return [...forms.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
}

/** A bigram is preferred to the best single word when it scores at least this share of it. */
const BIGRAM_SHARE = 0.75;

/**
 * Labels for each theme (`groups` index into `texts`), in the groups' order: a bigram, or two
 * words joined by "and", or one word; "" when the theme has no word of its own. `queryStems`
 * are the query's terms, left out. A term must be in two of a theme's posts when it has two.
 */
export function themeLabels(
  texts: readonly LabelledText[],
  groups: readonly (readonly number[])[],
  queryStems: ReadonlySet<string>,
): string[] {
  const perPost = texts.map((t) => grams(t, queryStems));
  // Document frequency of each gram in each group.
  const df = groups.map((g) => {
    const counts = new Map<string, { n: number; forms: Map<string, number> }>();
    for (const i of g)
      for (const gram of perPost[i]!.values()) {
        const c = counts.get(gram.key) ?? { n: 0, forms: new Map<string, number>() };
        c.n++;
        for (const [f, k] of gram.forms) c.forms.set(f, (c.forms.get(f) ?? 0) + k);
        counts.set(gram.key, c);
      }
    return counts;
  });
  return groups.map((g, gi) => {
    const others = groups.reduce((s, h, hi) => (hi === gi ? s : s + h.length), 0);
    const minDf = g.length >= 2 ? 2 : 1;
    const scored = [...df[gi]!.entries()]
      .filter(([, c]) => c.n >= minDf)
      .map(([key, c]) => {
        const outside = df.reduce((s, d, hi) => (hi === gi ? s : s + (d.get(key)?.n ?? 0)), 0);
        // Share of the theme's posts holding it, less its share of the other themes' posts.
        const score = c.n / g.length - (others > 0 ? outside / others : 0);
        return { key, form: commonest(c.forms), score, bigram: key.includes(" ") };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    const words = scored.filter((s) => !s.bigram);
    const pair = scored.find((s) => s.bigram);
    const top = words[0];
    if (top === undefined) return "";
    if (pair !== undefined && pair.score >= BIGRAM_SHARE * top.score) return pair.form;
    const second = words.find((w) => w.key !== top.key && w.score >= BIGRAM_SHARE * top.score);
    return second !== undefined ? `${top.form} and ${second.form}` : top.form;
  });
}
