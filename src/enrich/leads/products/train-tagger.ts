/**
 * Training the product tagger (tagger.ts) from labelled leads: each gold target_product is located
 * in the sentences the tagger reads (gold-span below), its tokens tagged B/I and the rest O, and an
 * averaged perceptron is fitted over them for a fixed number of passes in an order drawn from a
 * seed. Used by scripts/train-product-tagger.ts and by the test that re-trains the committed model.
 */
import { rng } from "../../sentiment/train-softmax.js";
import { PerceptronTrainer } from "./perceptron.js";
import { decode, TAGS, type TaggerSentence, tokenize } from "./tagger.js";

/** Words that never make a target on their own: a gold phrase is not found by its "for" or "the". */
const FUNCTION_WORDS = new Set(
  "a an the of for to in on at by with and or my our your some any best good new free cheap what which how is are i we".split(
    " ",
  ),
);

/** Two words the same up to a plural "s" ("tools" for "tool"). */
function sameWord(a: string, b: string): boolean {
  return a === b || a === `${b}s` || b === `${a}s`;
}

/**
 * Where `gold` stands in `tokens`: every [start, end) token range spelling the longest run of
 * the gold phrase's words found (all of "gaming pc", else "pc" alone), plurals allowed; none when
 * the only words found are function words.
 */
export function goldRanges(tokens: readonly { lower: string }[], gold: string): [number, number][] {
  const words = tokenize(gold).map((t) => t.lower);
  for (let len = words.length; len >= 1; len--) {
    const found: [number, number][] = [];
    for (let g = 0; g + len <= words.length; g++) {
      const part = words.slice(g, g + len);
      if (part.every((w) => FUNCTION_WORDS.has(w))) continue;
      for (let i = 0; i + len <= tokens.length; i++)
        if (part.every((w, k) => sameWord(tokens[i + k]!.lower, w))) found.push([i, i + len]);
    }
    if (found.length > 0) {
      // Overlapping runs of one length keep the first, so each token gets one tag.
      found.sort((x, y) => x[0] - y[0]);
      return found.filter((r, k) => k === 0 || r[0] >= found[k - 1]![1]);
    }
  }
  return [];
}

/** The gold tags of one sentence: B/I over each range of {@link goldRanges}, O elsewhere. */
export function goldTags(sentence: TaggerSentence, gold: string): number[] {
  const tokens = tokenize(sentence.text);
  const tags = tokens.map(() => 0);
  for (const [a, b] of goldRanges(tokens, gold)) for (let i = a; i < b; i++) tags[i] = i === a ? 1 : 2;
  return tags;
}

/** One training example: a lead's sentences as the tagger reads them and its gold target. */
export interface TaggerExample {
  sentences: readonly TaggerSentence[];
  gold: string;
}

/** Hyper-parameters of {@link trainTagger}. */
export interface TaggerFitOptions {
  epochs: number;
  seed: number;
}

/** Fits the tagger's weights on `examples`; each pass visits the sentences in a freshly shuffled order. */
export function trainTagger(examples: readonly TaggerExample[], o: TaggerFitOptions): Map<string, number[]> {
  const rows = examples.flatMap((e) => e.sentences.map((s) => ({ s, tags: goldTags(s, e.gold) })));
  const trainer = new PerceptronTrainer(TAGS.length);
  const next = rng(o.seed);
  const order = rows.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const k of order) {
      const { s, tags } = rows[k]!;
      const tokens = tokenize(s.text);
      // The guess is made as decoding makes it, each token seeing the tag guessed before it.
      let at = 0;
      decode(tokens, s, (features) => {
        const scores = trainer.scores(features);
        let guess = 0;
        for (let c = 1; c < scores.length; c++) if (scores[c]! > scores[guess]!) guess = c;
        trainer.update(features, tags[at]!, guess);
        at++;
        return scores;
      });
    }
  }
  return trainer.averaged();
}
