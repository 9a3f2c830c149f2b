/**
 * The words a query's keyword side searches for. "vs" and "versus" join the things compared and
 * name neither, yet neither is a stop word to LanceDB's English tokenizer or to Weaviate's "en"
 * preset: searched as words they matched any title comparing anything, and "Singleton vs Static"
 * (r/java) came first for "Stripe vs Braintree". The vector side still reads the query whole.
 */
const CONNECTIVES = /(?<=^|\s)(?:vs\.?|versus)(?=\s|$)/gi;

/** `text` without comparison connectives; `text` itself when nothing else is left. */
export function keywordText(text: string): string {
  const kept = text.replace(CONNECTIVES, " ").replace(/\s+/g, " ").trim();
  return /[\p{L}\p{N}]/u.test(kept) ? kept : text;
}
