/**
 * "Did you mean" for names a client got slightly wrong: request fields (strict-json.ts) and REST
 * paths (server.ts's not-found answer), by edit distance.
 */

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** The candidate nearest `word` if it is at most `maxDistance` edits away (the first on a tie). */
export function closest(word: string, candidates: readonly string[], maxDistance: number): string | undefined {
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d <= maxDistance && (best === undefined || d < best.d)) best = { c, d };
  }
  return best?.c;
}
