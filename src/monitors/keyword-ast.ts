/**
 * The AST of a keyword monitor's expression. A leaf matches words of the post (its title and
 * content, or the title alone) or one of its fields exactly; inner nodes combine leaves.
 */

/** Fields a `name:value` leaf may name. `title:` matches words, the others the whole field. */
export const KEYWORD_FIELDS = ["subforum", "author", "source", "title"] as const;
/** One of {@link KEYWORD_FIELDS}. */
export type KeywordField = (typeof KEYWORD_FIELDS)[number];

/** Words of the post: a single word (`prefix` for `word*`) or a quoted phrase (several words in order). */
export interface TermNode {
  type: "term";
  /** "text" = title and content; "title" = the title only. */
  scope: "text" | "title";
  /** Lower-cased words; one for a bare word, one or more for a phrase. */
  words: string[];
  /** True for `word*`: the last word matches any word it starts. */
  prefix: boolean;
}

/** A whole-field comparison: `subforum:rust`, `author:"jane doe"`, `source:hackernews`. */
export interface FieldNode {
  type: "field";
  field: "subforum" | "author" | "source";
  /** Lower-cased value compared with the lower-cased field. */
  value: string;
}

/** Every child must match. */
export interface AndNode {
  type: "and";
  children: KeywordNode[];
}

/** At least one child must match. */
export interface OrNode {
  type: "or";
  children: KeywordNode[];
}

/** The child must not match. */
export interface NotNode {
  type: "not";
  child: KeywordNode;
}

/** Any node of the AST. */
export type KeywordNode = TermNode | FieldNode | AndNode | OrNode | NotNode;
