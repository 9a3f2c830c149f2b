/**
 * What a theme is about, as a short phrase: its most distinctive word pair or words. A term is
 * distinctive when it is in many of the theme's posts and few of the other themes' posts; the
 * query's own words are left out (every theme shares them, so they tell themes apart by nothing).
 * Each term is shown as its commonest written form in the theme, so the label's words can be
 * found in the posts it describes.
 */
import { termTokens } from "./text-units.js";

/**
 * Words that say how a post is written, not what it is about; text-units' stop list covers the
 * function words already.
 */
const NOT_A_SUBJECT = new Set(
  (
    "because currently really actually think know want need like get got going make made use using " +
    "way thing things something anyone someone people question questions thanks help please one two " +
    "new good best great lot little much many even still well back also"
  ).split(" "),
);

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
function grams(text: LabelledText, skip: ReadonlySet<string>, titleOnly: boolean): Map<string, Gram> {
  const out = new Map<string, Gram>();
  const add = (key: string, form: string) => {
    const g = out.get(key) ?? { key, forms: new Map<string, number>() };
    g.forms.set(form, (g.forms.get(form) ?? 0) + 1);
    out.set(key, g);
  };
  // Numbers and contractions ("don't") name nothing a theme is about.
  const unfit = (t: { stem: string; word: string }) =>
    skip.has(t.stem) || NOT_A_SUBJECT.has(t.word) || /^\d+$|'/.test(t.word);
  for (const part of titleOnly ? [text.title] : [text.title, text.content]) {
    const tokens = termTokens(part);
    tokens.forEach((t, i) => {
      if (unfit(t)) return;
      add(t.stem, t.word);
      const next = tokens[i + 1];
      if (next !== undefined && !unfit(next) && next.stem !== t.stem)
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
 * are the query's terms, left out. A term must be in two of a theme's posts when it has two; a
 * theme of one post is labelled from its title.
 */
export function themeLabels(
  texts: readonly LabelledText[],
  groups: readonly (readonly number[])[],
  queryStems: ReadonlySet<string>,
): string[] {
  // A theme of one post is named from its title: any word of its body would be "distinctive".
  const single = new Set(groups.filter((g) => g.length === 1).map((g) => g[0]!));
  const perPost = texts.map((t, i) => grams(t, queryStems, single.has(i)));
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
