/**
 * Text handling for lead detection: the post's title and body split into sentences that keep
 * their position (title first), with URLs and markdown noise removed so patterns see prose, and
 * with other people's words (retold dialogue, quoted speech) left out.
 */
import type { Post } from "../../model/post.js";
import { straightApostrophes } from "../apostrophes.js";
import { Trigrams } from "./literals.js";
import { isTranscript, quotedSpeech, speakerOf } from "./reported-speech.js";

/** One sentence of a post. `inTitle` marks sentences taken from the title. */
export interface Sentence {
  text: string;
  inTitle: boolean;
  /** 0-based index over the whole post (title sentences first). */
  index: number;
}

/** Long bodies are cut: intent is stated early, and the cost of a post must stay bounded. */
export const MAX_BODY_CHARS = 4000;

const URL = /\bhttps?:\/\/\S+|\bwww\.\S+/gi;

/**
 * Collapses runs of spaces and tabs to one space. A lone space is already what it would become, so
 * only longer runs and tabs are replaced: `/[ \t]+/g` matched every space of the text, rebuilding
 * it piece by piece for nothing.
 */
const BLANKS = /[ \t]{2,}|\t/g;

/**
 * Removes URLs, markdown links/emphasis and collapses whitespace, and writes apostrophes as
 * ASCII. A "#" that opens a word is a hashtag and stays ("#fail"), as the complaint cues read it;
 * heading marks and any other "#" go. A markdown link needs "](" and a run to collapse needs two
 * blanks or a tab: most texts have neither, and `includes` says so faster than the regex does.
 */
export function clean(text: string): string {
  const straight = straightApostrophes(text);
  const linked = straight.includes("](") ? straight.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") : straight;
  const plain = linked
    .replace(URL, " ")
    .replace(/[*_`>]+|#+(?![A-Za-z])|(?<=\S)#+/g, " ")
    .replace(/&amp;/g, "&");
  return (plain.includes("  ") || plain.includes("\t") ? plain.replace(BLANKS, " ") : plain).trim();
}

/** The sentences of one line. */
function splitLine(line: string): string[] {
  const out: string[] = [];
  // A sentence ends at . ! ? (runs of them) followed by space and a capital; abbreviations such
  // as "vs." and "e.g." do not end one, and decimals never match.
  for (const part of line.split(
    /(?<!\b(?:[Vv]s|[Ee]\.g|[Ii]\.e|etc|approx|[Mm]rs?|[Mm]s|[Dd]r|[Ss]t|[Ii]nc|[Ll]td|[Nn]o)\.)(?<=[.!?]+)\s+(?=[A-Z0-9"'([@#\u201c])/,
  )) {
    const s = part.trim();
    if (s.length > 1) out.push(s);
  }
  return out;
}

/**
 * A line break inside a sentence: a long line (a hard wrap falls near column 70-80; list items and
 * headings are mostly short) ending mid-sentence, then a line going on in lower case. Stack
 * Exchange bodies and e-mailed text arrive wrapped this way, and splitting there cut a pain point
 * in two ("frustrating experience to the user." shown for the sentence it ended).
 */
const WRAP_MIN = 60;

/** `text` with its soft-wrapped lines joined (see above); most texts have no line break. */
function unwrap(text: string): string {
  if (!text.includes("\n")) return text;
  const lines = text.split("\n");
  let out = lines[0]!;
  for (let i = 1; i < lines.length; i++) {
    // Each wrapped line is judged on its own length: a hard wrap falls at about the same column on every line.
    const last = lines[i - 1]!.trim();
    const next = lines[i]!.trimStart();
    const wrapped = last.length >= WRAP_MIN && /[\p{L}\p{N},;]$/u.test(last) && /^[a-z]/.test(next);
    out += wrapped ? ` ${next}` : `\n${lines[i]!}`;
  }
  return out;
}

/**
 * The poster's own sentences of a text, in order: the lines of a retold dialogue and sentences
 * spoken inside quotation marks are someone else's words (reported-speech.ts) and are left out.
 * `transcripts` false reads every line as the poster's (a title is one line, never a dialogue).
 */
function ownSentences(text: string, transcripts: boolean): string[] {
  const lines = unwrap(text)
    .split(/\n+/)
    .map((line) => ({ line, parts: splitLine(line) }))
    .filter((l) => l.parts.length > 0);
  const speakers = transcripts ? lines.map((l) => speakerOf(l.line.trim())) : [];
  const dialogue = transcripts && isTranscript(speakers);
  return lines.flatMap((l, i) => {
    if (dialogue && speakers[i] !== undefined) return [];
    const quoted = quotedSpeech(l.parts);
    return l.parts.filter((_, j) => !quoted[j]);
  });
}

/**
 * The post's sentences, title first: the poster's own words only (see {@link ownSentences}). A
 * title ending without punctuation is still one sentence.
 */
export function sentencesOf(post: Pick<Post, "title" | "content">): Sentence[] {
  const title = ownSentences(clean(post.title), false);
  const body = ownSentences(clean(post.content.slice(0, MAX_BODY_CHARS)), true);
  return [
    ...title.map((text, i) => ({ text, inTitle: true, index: i })),
    ...body.map((text, i) => ({ text, inTitle: false, index: title.length + i })),
  ];
}

/**
 * `text` at most `max` characters long, cut after a whole word with an ellipsis when it was cut
 * (a pain point is shown to people: "... and I stopp" reads as a fault). A first word longer than
 * `max` is cut where it must be.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max); // the ellipsis takes the place of the space it is cut at
  const space = head.lastIndexOf(" ");
  const cut = (space > 0 ? head.slice(0, space) : head.slice(0, max - 1)).replace(/[\s,;:(-]+$|[\ud800-\udbff]$/, "");
  return `${cut}\u2026`;
}

/** URLs in the raw post text (title and body). */
export function countUrls(post: Pick<Post, "title" | "content">): number {
  return (post.title.match(URL)?.length ?? 0) + (post.content.slice(0, MAX_BODY_CHARS).match(URL)?.length ?? 0);
}

/**
 * A post's sentences as one text, built once per post for the rules that first ask whether a
 * pattern can match anywhere in the post (signals.ts, product.ts): `joined` holds the sentences
 * one per line, `grams` its trigrams (literals.ts).
 */
export interface SentenceView {
  joined: string;
  grams: Trigrams;
}

/** The {@link SentenceView} of `sentences`. */
export function sentenceView(sentences: readonly Sentence[]): SentenceView {
  const joined = sentences.map((s) => s.text.replace(/\n/g, " ")).join("\n");
  return { joined, grams: new Trigrams(joined) };
}
