/**
 * The word tokenizer shared by topic labelling (c-TF-IDF) and trending keywords (log-odds):
 * lower-case letter/digit runs of 3..24 characters outside links, English and forum stopwords removed (with
 * contractions in the apostrophe-less form the tokenizer gives them), and pure numbers dropped
 * (they are rarely a topic). One tokenizer for both, so a label's words
 * and a trend's keywords come from the same vocabulary.
 */

const STOPWORDS = new Set(
  (
    "about above after again against all also although always among and another any anyone anything are aren around " +
    "because been before being below between both but came can cannot could couldn did didn does doesn doing don done down " +
    "during each either else enough even ever every few for from further get gets getting got had hadn has hasn have haven " +
    "having her here hers herself him himself his how however into isn its itself just know last least less let like likely " +
    "made make makes many may maybe might mine more most much must myself need needs neither never new next nor not nothing now " +
    "off often once one only other others our ours ourselves out over own per perhaps please put quite rather really said same " +
    "say says see seem seems shall she should shouldn since some someone something still such sure take than that the their " +
    "theirs them themselves then there these they thing things think this those though through thus too under until upon use " +
    "used using very via want wants was wasn way well went were weren what whatever when where whether which while who whom " +
    "whose why will with within without won would wouldn yes yet you your yours yourself yourselves able already anyway " +
    "back better going good great lot lots much new old right time year years day days people thanks thank actually " +
    "http https www com org net html amp gt lt nbsp quot etc okay lol edit xpost x-post " +
    // Conversational words a forum post uses whatever it is about.
    "hey hello guys cool stuff kind sort pretty look looks looking looked give gave given ask asked asking try tried " +
    "trying mostly currently usually probably sometimes everything everyone unless instead far keep kept " +
    // Contractions as the tokenizer leaves them (it drops the apostrophe: "don't" -> "dont").
    "aint arent cant couldnt didnt doesnt dont hadnt hasnt havent hes ill im isnt ive shes shouldnt thats theres " +
    "theyd theyll theyre theyve wasnt weve werent whats wont wouldnt youd youll youre youve"
  ).split(" "),
);

/** Whether `word` (lower case) is dropped as a stopword. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/**
 * A link: a scheme or "www." and everything up to the next space or markup delimiter. Links are
 * dropped before tokenizing: their parts ("eugenehennie.com", "my-first-20-with-alibaba") are
 * not words, and one post's link led the keywords of a trend on a 4,013-post index. A domain
 * written without a scheme ("shopify.com") stays a term.
 */
const LINK = /(?:https?:\/\/|www\.)[^\s<>"'()[\]{}]*/g;

/** `lower` (lower-cased text) with its links replaced by a space. */
export function stripLinks(lower: string): string {
  // The check first: most texts hold no link, and includes() is far cheaper than the regex scan.
  return lower.includes("http") || lower.includes("www.") ? lower.replace(LINK, " ") : lower;
}

/** The token grammar, spelled as a regular expression; {@link terms} scans for the same tokens by hand. */
export const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'+#.-]*[\p{L}\p{N}+#]|[\p{L}\p{N}]/gu;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether a token's first character is a digit (a token never starts with . , + or -). */
function startsNumeric(word: string): boolean {
  const c = word.charCodeAt(0);
  return c >= 48 && c <= 57;
}

/** Whether the code point at `i` of `s` is a letter or digit (ASCII inline, the rest by Unicode class). */
function isWordCode(s: string, i: number, c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  return LETTER_OR_DIGIT.test(String.fromCodePoint(s.codePointAt(i)!));
}

/** UTF-16 units of the code point at `i`. */
function width(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return 1;
  const next = s.charCodeAt(i + 1);
  return next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/**
 * The terms of a text, in order, repeats kept, links left out ({@link stripLinks}). A token is a run of letters, digits and ' + # . -
 * that starts with a letter or digit and ends on the last letter, digit, + or # of the run (what
 * {@link TOKEN} matches). ListTrends tokenizes every keyword post on each call (its largest CPU
 * cost), so the run is found by char codes instead of the Unicode regex, about 3x faster with
 * the same output (test/topics/terms.test.ts holds it to the regex).
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  const s = stripLinks(text.toLowerCase());
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (!isWordCode(s, i, c)) {
      i += c >= 128 ? width(s, i) : 1;
      continue;
    }
    const start = i;
    // `end` is one past the last unit that may close the token (letter, digit, + or #).
    let end = i + (c >= 128 ? width(s, i) : 1);
    let j = end;
    while (j < n) {
      const d = s.charCodeAt(j);
      if (d === 43 || d === 35) {
        j++;
        end = j;
      } else if (d === 39 || d === 46 || d === 45) {
        j++;
      } else if (isWordCode(s, j, d)) {
        j += d >= 128 ? width(s, j) : 1;
        end = j;
      } else break;
    }
    i = end;
    let word = s.slice(start, end);
    if (word.includes("'")) word = word.replace(/'s$/, "").replaceAll("'", "");
    if (word.length < 3 || word.length > 24) continue;
    if (startsNumeric(word) && /^[\d.,+-]+$/.test(word)) continue;
    if (STOPWORDS.has(word)) continue;
    out.push(word);
  }
  return out;
}

/** Adds the terms of `text` to a count table. */
export function countTerms(text: string, into: Map<string, number>): Map<string, number> {
  for (const t of terms(text)) into.set(t, (into.get(t) ?? 0) + 1);
  return into;
}

/** Whether the unit at `i` of `s` can be part of a token: a letter, digit, ' + # . or - (a surrogate half counts as its code point). */
function isTokenUnit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 39 || c === 43 || c === 35 || c === 46 || c === 45) return true;
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
    const h = s.charCodeAt(i - 1);
    if (h >= 0xd800 && h <= 0xdbff) return LETTER_OR_DIGIT.test(String.fromCodePoint(s.codePointAt(i - 1)!));
  }
  return isWordCode(s, i, c);
}

/**
 * The first `max` UTF-16 units of `text`, less the token the cut would split: without this, a body
 * cut inside "platform" gave the term "platfor", and two posts cut there made it a trending keyword.
 */
export function clipAtToken(text: string, max: number): string {
  if (text.length <= max) return text;
  let i = max;
  if (isTokenUnit(text, i)) while (i > 0 && isTokenUnit(text, i - 1)) i--;
  return text.slice(0, i);
}

/** The text a post contributes to topic terms: title twice (titles say what a post is about) and the body. */
export function postText(title: string, content: string, maxContentChars = 2000): string {
  return `${title}\n${title}\n${clipAtToken(content, maxContentChars)}`;
}
