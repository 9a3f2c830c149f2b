/**
 * VADER (Hutto & Gilbert 2014) scoring, written here to give exactly what the npm
 * `vader-sentiment` port (1.1.3) gives, at a fraction of its cost. The port rebuilds a map of
 * every word joined with each of 17 punctuation marks on every call (34 strings per word) just to
 * strip punctuation from tokens, and copies its negation list for every lexicon word; on ingest's
 * two cores that was the largest share of the main thread's work per post (~1.3 ms of ~1.8 ms),
 * which is CPU the sentence encoder's workers did not get. Here a token is checked directly: it
 * loses a leading or trailing mark when what remains is a word of the text.
 *
 * The lexicon is read from the package's own `vader_lexicon.txt` (later lines win, as in the
 * port's object literal). The rules below follow the port step for step, case-sensitive where it
 * is and in the same arithmetic order, so the rounded scores are equal;
 * test/enrich/vader-rules.test.ts compares the two on every lexicon entry, crafted texts and
 * real posts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** VADER's output: proportions of negative/neutral/positive text and the normalised compound -1..1. */
export interface VaderScores {
  neg: number;
  neu: number;
  pos: number;
  compound: number;
}

/** Intensity added or taken by a booster or dampener word. */
const BOOST = 0.293;
const DAMPEN = -0.293;
/** Added to a word written in capitals among words that are not. */
const CAPS_BOOST = 0.733;
/** Factor applied to a negated valence. */
const NEGATED = -0.74;
/** Normalisation constant of the compound score. */
const ALPHA = 15;

/** Marks a token may carry before or after a word and still count as that word. */
const EDGE_MARKS = new Set([
  ".",
  "!",
  "?",
  ",",
  ";",
  ":",
  "-",
  "'",
  '"',
  "!!",
  "!!!",
  "??",
  "???",
  "?!?",
  "!?!",
  "?!?!",
  "!?!?",
]);
const isAsciiPunctuation = (code: number): boolean =>
  (code >= 33 && code <= 47) ||
  (code >= 58 && code <= 64) ||
  (code >= 91 && code <= 96) ||
  (code >= 123 && code <= 126);
const WHITESPACE = /\s/;

const NEGATIONS = new Set(
  (
    "aint arent cannot cant couldnt darent didnt doesnt ain't aren't can't couldn't daren't didn't doesn't dont hadnt hasnt " +
    "havent isnt mightnt mustnt neither don't hadn't hasn't haven't isn't mightn't mustn't neednt needn't never none nope nor " +
    "not nothing nowhere oughtnt shant shouldnt uhuh wasnt werent oughtn't shan't shouldn't uh-uh wasn't weren't without " +
    "wont wouldnt won't wouldn't rarely seldom despite"
  ).split(" "),
);

const BOOSTERS = new Map<string, number>([
  ...(
    "absolutely amazingly awfully completely considerably decidedly deeply effing enormously entirely especially exceptionally " +
    "extremely fabulously flipping flippin fricking frickin frigging friggin fully fucking greatly hella highly hugely " +
    "incredibly intensely majorly more most particularly purely quite really remarkably so substantially thoroughly totally " +
    "tremendously uber unbelievably unusually utterly very"
  )
    .split(" ")
    .map((w): [string, number] => [w, BOOST]),
  ...[
    "almost",
    "barely",
    "hardly",
    "just enough",
    "kind of",
    "kinda",
    "kindof",
    "kind-of",
    "less",
    "little",
    "marginally",
    "occasionally",
    "partly",
    "scarcely",
    "slightly",
    "somewhat",
    "sort of",
    "sorta",
    "sortof",
    "sort-of",
  ].map((w): [string, number] => [w, DAMPEN]),
]);

const IDIOMS = new Map<string, number>([
  ["the shit", 3],
  ["the bomb", 3],
  ["bad ass", 1.5],
  ["yeah right", -2],
  ["cut the mustard", 2],
  ["kiss of death", -1.5],
  ["hand to mouth", -2],
]);

let lexicon: Map<string, number> | undefined;

/** word -> mean valence, from the package's lexicon file. */
function lexiconOf(): Map<string, number> {
  if (lexicon) return lexicon;
  const file = createRequire(import.meta.url).resolve("vader-sentiment/vader_lexicon.txt");
  const out = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const tab = line.indexOf("\t");
    if (tab <= 0) continue;
    const end = line.indexOf("\t", tab + 1);
    out.set(line.slice(0, tab), Number(line.slice(tab + 1, end < 0 ? undefined : end)));
  }
  return (lexicon = out);
}

/** A word in capitals: some A-Z and no a-z (VADER's /^[^a-z]*[A-Z]+[^a-z]*$/, without the regex). */
function isUpper(word: string): boolean {
  let upper = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 97 && c <= 122) return false;
    if (c >= 65 && c <= 90) upper = true;
  }
  return upper;
}
const negated = (word: string): boolean => NEGATIONS.has(word) || word.includes("n't");

/** True when `t` from `start` to `end` holds no ASCII punctuation. */
function noPunctuation(t: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (isAsciiPunctuation(t.charCodeAt(i))) return false;
  return true;
}

/**
 * The text's tokens (whitespace-separated, longer than one character), each stripped of one
 * leading or trailing mark of {@link EDGE_MARKS} when the rest is a plain word of the text (a
 * word of two or more characters once all ASCII punctuation is removed from the text).
 *
 * The plain words are never built: removing punctuation keeps whitespace, so they are the tokens
 * without their punctuation, and the rest of a token (itself without the stripped mark) is one of
 * them exactly when it holds no punctuation and has two or more characters.
 */
export function vaderTokens(text: string): string[] {
  const tokens = text.split(WHITESPACE).filter((t) => t.length > 1);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // The mark is exactly the run of ASCII punctuation at the edge.
    let lead = 0;
    while (lead < t.length && isAsciiPunctuation(t.charCodeAt(lead))) lead++;
    if (lead > 0) {
      if (t.length - lead > 1 && EDGE_MARKS.has(t.slice(0, lead)) && noPunctuation(t, lead, t.length))
        tokens[i] = t.slice(lead);
      continue;
    }
    let trail = t.length;
    while (trail > 0 && isAsciiPunctuation(t.charCodeAt(trail - 1))) trail--;
    if (trail < t.length && trail > 1 && EDGE_MARKS.has(t.slice(trail)) && noPunctuation(t, 0, trail))
      tokens[i] = t.slice(0, trail);
  }
  return tokens;
}

/** Booster or dampener effect of `word` on a sentiment word of `valence`. */
function boost(word: string, lower: string, valence: number, capsDiffer: boolean): number {
  const b = BOOSTERS.get(lower);
  if (b === undefined) return 0;
  let scalar = valence < 0 ? -b : b;
  if (capsDiffer && isUpper(word)) scalar += valence > 0 ? CAPS_BOOST : -CAPS_BOOST;
  return scalar;
}

/** Valence of the sentiment word at `i`, after the up to three words before it and its idioms. */
function wordValence(
  words: readonly string[],
  lower: readonly string[],
  i: number,
  base: number,
  capsDiffer: boolean,
  lex: Map<string, number>,
): number {
  let valence = base;
  if (isUpper(words[i]!) && capsDiffer) valence += valence > 0 ? CAPS_BOOST : -CAPS_BOOST;
  for (let back = 0; back < 3; back++) {
    const at = i - (back + 1);
    if (i <= back || lex.has(lower[at]!)) continue;
    let s = boost(words[at]!, lower[at]!, valence, capsDiffer);
    if (back === 1 && s !== 0) s = s * 0.95;
    else if (back === 2 && s !== 0) s = s * 0.9;
    valence = valence + s;
    valence = negationCheck(valence, words, back, i);
    if (back === 2) valence = idiomCheck(valence, words, i);
  }
  if (i > 0 && lower[i - 1] === "least" && !lex.has("least")) {
    if (i === 1 || (lower[i - 2] !== "at" && lower[i - 2] !== "very")) valence = valence * NEGATED;
  }
  return valence;
}

/** Module-level, not a closure per call: negation and idiom checks run for every sentiment word. */
function soOrThis(w: string | undefined): boolean {
  return w === "so" || w === "this";
}

function negationCheck(valence: number, words: readonly string[], back: number, i: number): number {
  if (back === 0) return negated(words[i - 1]!) ? valence * NEGATED : valence;
  if (back === 1) {
    if (words[i - 2] === "never" && soOrThis(words[i - 1])) return valence * 1.5;
    return negated(words[i - 2]!) ? valence * NEGATED : valence;
  }
  if ((words[i - 3] === "never" && soOrThis(words[i - 2])) || soOrThis(words[i - 1])) return valence * 1.25;
  return negated(words[i - 3]!) ? valence * NEGATED : valence;
}

/** Every word of an idiom or of a multi-word booster ("kind of"): the only words idiomCheck reacts to. */
const IDIOM_WORDS = new Set(
  [...IDIOMS.keys(), ...[...BOOSTERS.keys()].filter((k) => k.includes(" "))].flatMap((k) => k.split(" ")),
);

/**
 * Idioms around the word at `i` replace its valence; a multi-word booster before it dampens it.
 * Every sequence looked up is made of words[i - 3] to words[i + 2], so when none of those is an
 * idiom's or booster's word nothing can be found, and the strings are not built.
 */
function idiomCheck(valence: number, words: readonly string[], i: number): number {
  let near = false;
  for (let k = Math.max(0, i - 3); k <= i + 2 && k < words.length; k++) {
    if (IDIOM_WORDS.has(words[k]!)) {
      near = true;
      break;
    }
  }
  if (!near) return valence;
  const w = (k: number): string => String(words[k]);
  const oneZero = `${w(i - 1)} ${w(i)}`;
  const twoOne = `${w(i - 2)} ${w(i - 1)}`;
  const threeTwo = `${w(i - 3)} ${w(i - 2)}`;
  let out = valence;
  for (const seq of [
    oneZero,
    `${w(i - 2)} ${w(i - 1)} ${w(i)}`,
    twoOne,
    `${w(i - 3)} ${w(i - 2)} ${w(i - 1)}`,
    threeTwo,
  ]) {
    const v = IDIOMS.get(seq);
    if (v !== undefined) {
      out = v;
      break;
    }
  }
  if (words.length - 1 > i) out = IDIOMS.get(`${w(i)} ${w(i + 1)}`) ?? out;
  if (words.length - 1 > i + 1) out = IDIOMS.get(`${w(i)} ${w(i + 1)} ${w(i + 2)}`) ?? out;
  if (BOOSTERS.has(threeTwo) || BOOSTERS.has(twoOne)) out = out + DAMPEN;
  return out;
}

function count(text: string, ch: string): number {
  let n = 0;
  for (let at = text.indexOf(ch); at !== -1; at = text.indexOf(ch, at + 1)) n++;
  return n;
}

/** Emphasis from exclamation marks (up to 4) and question marks (2 or more). */
function punctuationEmphasis(text: string): number {
  const ep = Math.min(count(text, "!"), 4) * 0.292;
  const qm = count(text, "?");
  return ep + (qm > 1 ? (qm <= 3 ? qm * 0.18 : 0.96) : 0);
}

/** VADER's scores of `text` (the whole text; callers cut it). */
export function vaderPolarity(text: string): VaderScores {
  const lex = lexiconOf();
  const words = vaderTokens(text);
  const lower = words.map((w) => w.toLowerCase());
  let caps = 0;
  for (const w of words) if (isUpper(w)) caps++;
  const capsDiffer = words.length - caps > 0 && words.length - caps < words.length;
  const sentiments: number[] = new Array<number>(words.length);
  for (let i = 0; i < words.length; i++) {
    const l = lower[i]!;
    const base = lex.get(l);
    const kindOf = i < words.length - 1 && l === "kind" && lower[i + 1] === "of";
    sentiments[i] =
      base === undefined || kindOf || BOOSTERS.has(l) ? 0 : wordValence(words, lower, i, base, capsDiffer, lex);
  }
  if (sentiments.length === 0) return { neg: 0, neu: 0, pos: 0, compound: 0 };
  let but = words.indexOf("but");
  if (but === -1) but = words.indexOf("BUT");
  if (but !== -1) {
    for (let i = 0; i < sentiments.length; i++) {
      if (i < but) sentiments[i] = sentiments[i]! * 0.5;
      else if (i > but) sentiments[i] = sentiments[i]! * 1.5;
    }
  }
  let sum = 0;
  for (const s of sentiments) sum += s;
  const emphasis = punctuationEmphasis(text);
  if (sum > 0) sum += emphasis;
  else if (sum < 0) sum -= emphasis;
  const norm = sum / Math.sqrt(sum * sum + ALPHA);
  const compound = norm < -1 ? -1 : norm > 1 ? 1 : norm;
  let posSum = 0;
  let negSum = 0;
  let neutral = 0;
  for (const s of sentiments) {
    if (s > 0) posSum += s + 1;
    else if (s < 0) negSum += s - 1;
    else neutral += 1;
  }
  if (posSum > Math.abs(negSum)) posSum += emphasis;
  else if (posSum < Math.abs(negSum)) negSum -= emphasis;
  const total = posSum + Math.abs(negSum) + neutral;
  return {
    neg: parseFloat(Math.abs(negSum / total).toFixed(3)),
    neu: parseFloat(Math.abs(neutral / total).toFixed(3)),
    pos: parseFloat(Math.abs(posSum / total).toFixed(3)),
    compound: parseFloat(compound.toFixed(4)),
  };
}
