/**
 * Someone else's words inside a post: the lines of a dialogue transcript ("Me: ...", "Caller:
 * ...") and sentences spoken inside quotation marks. A lead is what the poster wants, so a
 * caller's "I want to order something" retold by the support tech who took the call is not the
 * poster's buying intent, nor a customer's quoted outburst the poster's pain. Such sentences
 * are marked, and the lead rules read only the others.
 */

/** Who speaks: one to three words (shared by {@link SPEAKER} and {@link LABEL_BEFORE_QUOTE}). */
const LABEL = String.raw`[A-Za-z$@][\w$@.'’&-]*(?: [\w$@.'’&-]+){0,2}`;
/**
 * A line opening with who speaks: one to three words, a colon, then the words. Written for
 * retold conversations; field labels a post fills in ("Budget:", "Edit:") are filtered by
 * {@link FIELD_LABELS} and by the transcript rule, which needs labels that take turns.
 */
const SPEAKER = new RegExp(String.raw`^(${LABEL})\s*:\s+\S`);

/** Labels that head a note or a field of a form, not a turn of speech. */
const FIELD_LABELS =
  /^(?:edit|edited|edit \d+|update|updated|update \d+|note|notes|ps|p\.s|tl;?dr|tl dr|question|questions|problem|issue|answer|solution|error|result|output|budget|specs?|cpu|gpu|ram|os|price|cost|link|source|example|step \d+|option \d+|pros|cons)$/i;

/** The speaker label of a line, lower case, when the line opens with one. */
export function speakerOf(line: string): string | undefined {
  const m = SPEAKER.exec(line);
  if (m === null) return undefined;
  const label = m[1]!.toLowerCase();
  return FIELD_LABELS.test(label) ? undefined : label;
}

/**
 * Whether labelled lines make a transcript: at least two speakers who each speak at least twice,
 * over four or more lines. A form filled in once per field never repeats a label; a dialogue does.
 */
export function isTranscript(labels: readonly (string | undefined)[]): boolean {
  const turns = new Map<string, number>();
  for (const l of labels) if (l !== undefined) turns.set(l, (turns.get(l) ?? 0) + 1);
  let speakers = 0;
  let lines = 0;
  for (const n of turns.values()) {
    if (n >= 2) {
      speakers += 1;
      lines += n;
    }
  }
  return speakers >= 2 && lines >= 4;
}

const OPEN = "\u201c";
const CLOSE = "\u201d";
const STRAIGHT = '"';
const ANY_QUOTE = /["\u201c\u201d]/;
const LETTER = /[\p{L}\p{N}]/u;

/**
 * A speaker's label right before the quotation it introduces: 'Me:"I never got your e-mail"',
 * 'Him: "uh, yeah."'. The words are still said, not written by the poster, so the sentence opens
 * inside the quotation for {@link quotedSpeech}.
 */
const LABEL_BEFORE_QUOTE = new RegExp(String.raw`^${LABEL}\s*:\s*(?=["\u201c])`);

/** Share of a sentence's letters that must lie inside quotation marks for it to be speech. */
const QUOTED_SHARE = 0.5;

function isLetter(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return LETTER.test(ch);
}

/**
 * Quotation state along one line's sentences, in order: which of them are spoken inside quotation
 * marks. A sentence is speech when it opens inside a quotation (it starts with a quotation mark, or
 * a quotation left open by the sentence before runs on into it, or a speaker's label comes first:
 * {@link LABEL_BEFORE_QUOTE}) and at least half of its letters
 * are quoted. One that only quotes a phrase or an error message ('I get "Access denied" when I
 * log in') starts outside the quotation and stays the poster's.
 */
export function quotedSpeech(sentences: readonly string[]): boolean[] {
  if (!sentences.some((s) => ANY_QUOTE.test(s))) return sentences.map(() => false);
  let open = false;
  return sentences.map((text) => {
    const first = text.trimStart().replace(LABEL_BEFORE_QUOTE, "")[0] ?? "";
    const opensInside = open || first === STRAIGHT || first === OPEN;
    let inside = 0;
    let letters = 0;
    let previous = "";
    for (const ch of text) {
      // A straight quote right after a digit, with no quotation open, measures inches (a 47" TV);
      // with one open it closes it ("35:00").
      if (ch === STRAIGHT && (open || !/[0-9]/.test(previous))) open = !open;
      else if (ch === OPEN) open = true;
      else if (ch === CLOSE) open = false;
      else if (isLetter(ch)) {
        letters += 1;
        if (open) inside += 1;
      }
      previous = ch;
    }
    return opensInside && letters > 0 && inside / letters >= QUOTED_SHARE;
  });
}
