/**
 * What a post wants replaced: the product named next to "alternative", "replacement" or "switch
 * from" ("Alternatives to Team Viewer?", "Skype alternatives for Linux?", "moving away from
 * Mailchimp"). The place says a product is meant, so a name the gazetteer does not list
 * counts there when it is written as one: one to three capitalised words (Team Viewer, Gmail,
 * iCloud). Two kinds of capital say little: a sentence's first word, which counts only when it
 * does not read as an adjective ("Skype alternatives", not "Decentralized alternative to ..."),
 * and the words of a sentence in title case ("Alternatives To Hiring A Developer"), where only
 * gazetteer names count.
 *
 * Found by reading FindLeads answers: "Skype alternatives for Linux?" reported
 * Linux, the gazetteer name in the sentence, and "Alternatives to Gmail?" nothing.
 */
import { canonicalProduct } from "./gazetteer.js";
import replacedWords from "./replaced-words.json" with { type: "json" };

/**
 * A cue preceded by the replaced name: "Skype alternatives". Not "vs": read on the corpora, the
 * words around it were as often generic nouns in capitals ("Contractors Vs Employees", "Freemium
 * vs Ads") as products, and gazetteer products in a comparison are found anyway. Not "clone"
 * either: "a Google Reader clone" is mostly what the poster built.
 */
const NAME_THEN_CUE = /\s+(?:alternatives?|replacements?)\b/gi;
/**
 * A cue followed by the replaced name: "alternative to Gmail", "switching from Basecamp". Not the
 * past tense, nor the noun: "I switched from a GNex", "before the switch from windows" tell a
 * story, they do not ask. Not "instead of": "through Coursera instead of a University" names no
 * product. Nor the verb "replace": its subject is mostly the replacer in a forecast ("Will
 * TypeScript replace JavaScript", "Obama is replacing Bernanke"), not the poster.
 */
const CUE_THEN_NAME =
  /\b(?:alternatives?|replacements?|substitutes?)\s+(?:to|for)\s+|(?<switch>(?<!\bthe\s)\b(?:switch(?:ing)?|migrat(?:e|ing))\s+(?:away\s+)?from\s+|\bmov(?:e|ing)\s+away\s+from\s+)/gi;
/**
 * After "switching from", an unlisted name is one word: longer runs in capitals there were
 * careers and stages ("from Chemical Engineering to ...", "from Full Time to Contract").
 */
const SWITCH_NAME_WORDS = 1;
/** Words the cues' literals must include; a sentence with none is skipped without a regex. */
const CUE_WORDS = ["alternative", "replacement", "substitute", "from"];

/** Determiners after a cue: "an alternative to the Google Play Store". */
const DETERMINER = /^(?:the|a|an|my|our|their|your|using)\s+/i;

/**
 * Capitalised words that are not names where they stand: determiners, adjectives before
 * "alternative", prepositions inside a title. Lowercased.
 */
const NOT_NAMES = new Set(replacedWords.notNames);

/** A word written as a name: a capital first (Gmail, H-1B) or inside (iCloud, eBay). */
const NAME_WORD = /^(?:[A-Z][A-Za-z0-9.+&'-]*|[a-z]{1,3}[A-Z][A-Za-z0-9.+-]*)$/;
/** An inner capital makes a word a name even where every word has a capital (iCloud, TeamViewer). */
const INNER_CAPITAL = /^.[a-z0-9]*[A-Z]/;
/** Endings of adjectives and participles that open a sentence: "Decentralized", "Ethical", "Affordable", "European". */
const ADJECTIVE_ENDING = /(?:ed|ly|ing|al|ive|ous|ble|ic|ful|less|ean|ish|ese)$/i;
const TRAILING_PUNCTUATION = /[?!.,:;)"'\]]+$/;
const LEADING_PUNCTUATION = /^[("'[]+/;
const MAX_NAME_WORDS = 3;

/** "Ask HN: ..." and its kin open a title; the words after them begin the sentence. */
const FORUM_PREFIX = /^(?:ask|show|tell)\s+hn\s*:\s*/i;

/** True when most words after the first start with a capital, so capitals say nothing. */
function inTitleCase(text: string): boolean {
  const words = text.match(/[A-Za-z][\w'-]*/g) ?? [];
  if (words.length < 5) return false;
  const rest = words.slice(1);
  return rest.filter((w) => w[0] !== w[0]!.toLowerCase()).length >= 0.6 * rest.length;
}

interface Word {
  text: string;
  /** Punctuation before the word starts a new phrase ("Arch (GASP!)"). */
  opens: boolean;
  /** Punctuation right after the word ends the name there. */
  closes: boolean;
}

function wordsOf(text: string): Word[] {
  return text
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => ({
      text: w.replace(LEADING_PUNCTUATION, "").replace(TRAILING_PUNCTUATION, ""),
      opens: LEADING_PUNCTUATION.test(w),
      closes: TRAILING_PUNCTUATION.test(w),
    }));
}

/**
 * Lowercase words that may follow a name ("an alternative to Skype that works", "... to WINE
 * are there?"). Any other lowercase word makes the capitals a modifier of a common noun ("the
 * H-1B visa", "a Canadian corporation", "the MS products"), which names no product.
 */
const AFTER_NAME = new Set(replacedWords.afterName);

/** The longest run of `words` (taken from its start) that the gazetteer lists, with no punctuation inside. */
function listedName(words: readonly Word[]): string | undefined {
  for (let k = Math.min(MAX_NAME_WORDS, words.length); k >= 1; k--) {
    const run = words.slice(0, k);
    if (run.slice(0, -1).some((w) => w.closes)) continue;
    const hit = canonicalProduct(run.map((w) => w.text).join(" "));
    if (hit) return hit;
  }
  return undefined;
}

function isName(word: Word, capitalsMean: boolean, sentenceStart: boolean): boolean {
  if (!NAME_WORD.test(word.text) || NOT_NAMES.has(word.text.toLowerCase())) return false;
  if (INNER_CAPITAL.test(word.text)) return true;
  return capitalsMean && !(sentenceStart && ADJECTIVE_ENDING.test(word.text));
}

/** The name right after `from` in `text`, or "". */
function nameAfter(text: string, from: number, capitalsMean: boolean, maxWords: number): string {
  const words = wordsOf(text.slice(from).replace(DETERMINER, ""));
  const listed = listedName(words);
  if (listed) return listed;
  const run: Word[] = [];
  for (const w of words) {
    if ((run.length > 0 && w.opens) || !isName(w, capitalsMean, false)) break;
    // A longer run of capitals is a phrase in capitals, not a product's name.
    if (run.length === maxWords) return "";
    run.push(w);
    if (w.closes) break;
  }
  const next = words[run.length];
  if (
    run.length === 0 ||
    (!run.at(-1)!.closes && next && !next.opens && /^[a-z]/.test(next.text) && !AFTER_NAME.has(next.text))
  )
    return "";
  return run.map((w) => w.text).join(" ");
}

/** The name right before `to` in `text` (which starts the sentence), or "". */
function nameBefore(text: string, to: number, capitalsMean: boolean): string {
  const all = wordsOf(text.slice(0, to));
  if (all.length === 0 || all.at(-1)!.closes) return "";
  for (let k = Math.min(MAX_NAME_WORDS, all.length); k >= 1; k--) {
    const listed = listedName(all.slice(-k));
    if (listed && listed.split(" ").length === k) return listed;
  }
  const run: string[] = [];
  for (let i = all.length - 1; i >= 0; i--) {
    const w = all[i]!;
    if ((w.closes && i !== all.length - 1) || !isName(w, capitalsMean, i === 0)) break;
    // As after a cue: a longer run of capitals is a phrase, not a name.
    if (run.length === MAX_NAME_WORDS) return "";
    run.unshift(w.text);
    if (w.opens) break;
  }
  return run.join(" ");
}

/** The product `sentence` wants replaced, as written or as the gazetteer spells it; "" when none. */
export function replacedName(sentence: string): string {
  const lower = sentence.toLowerCase();
  if (!CUE_WORDS.some((w) => lower.includes(w))) return "";
  const text = sentence.replace(FORUM_PREFIX, "");
  const capitalsMean = !inTitleCase(text);
  for (const m of text.matchAll(NAME_THEN_CUE)) {
    // A capital after the cue makes it part of a longer name ("Subject Alternative Name").
    if (/^\s*(?!I\b)[A-Z]/.test(text.slice(m.index + m[0].length))) continue;
    const name = nameBefore(text, m.index, capitalsMean);
    if (name) return name;
  }
  for (const m of text.matchAll(CUE_THEN_NAME)) {
    const name = nameAfter(
      text,
      m.index + m[0].length,
      capitalsMean,
      m.groups?.switch ? SWITCH_NAME_WORDS : MAX_NAME_WORDS,
    );
    if (name) return name;
  }
  return "";
}
