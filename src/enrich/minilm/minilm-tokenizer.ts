/**
 * The model's WordPiece tokenizer, read from its own tokenizer.json by Hugging Face's
 * tokenizers.js (normaliser, pre-tokenizer, vocabulary and [CLS]/[SEP] template as published).
 * Long texts are cut as sentence-transformers cuts them: the first tokens, then [SEP].
 */
import { readFile } from "node:fs/promises";
import { Tokenizer } from "@huggingface/tokenizers";

/** Characters tokenised per text: well past what fills the token budget, so the cut is the token one. */
const MAX_CHARS = 4096;

/** Text -> token ids, [CLS] first and [SEP] last, at most `maxTokens`. */
export type TokenizeFn = (text: string) => number[];

/** Loads tokenizer.json and returns the tokenise function. */
export async function loadMiniLmTokenizer(file: string, maxTokens: number): Promise<TokenizeFn> {
  const json = JSON.parse(await readFile(file, "utf8")) as object;
  // tokenizer_config.json's fields that tokenizers.js reads; the normaliser itself is in tokenizer.json.
  const tokenizer = new Tokenizer(json, {
    do_lower_case: true,
    clean_up_tokenization_spaces: true,
    model_max_length: 512,
  });
  const sep = tokenizer.token_to_id("[SEP]");
  if (sep === undefined) throw new Error(`${file}: no [SEP] token`);
  return (text) => {
    const ids = tokenizer.encode(text.slice(0, MAX_CHARS)).ids;
    if (ids.length <= maxTokens) return ids;
    const cut = ids.slice(0, maxTokens - 1);
    cut.push(sep);
    return cut;
  };
}
