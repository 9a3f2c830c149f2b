/**
 * Finds a key that appears twice in one JSON object. JSON.parse keeps the last one silently,
 * but parsers disagree (some keep the first), so a body like {"query":"a","query":"b"} can mean
 * one thing to a proxy or log reader and another to us; the REST gateway refuses it, as
 * protobuf-es already does for Connect JSON. Runs on text JSON.parse has accepted, in one pass
 * with an explicit stack (no recursion: 10,000 levels of nesting are fine).
 */

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

/** The first duplicated key (unescaped), or undefined. `text` must be valid JSON. */
export function findDuplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const stack: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      let next = end + 1;
      while (isSpace(text[next])) next++;
      const keys = stack[stack.length - 1];
      if (text[next] === ":" && keys) {
        // Compare unescaped: "q" and "\u0071" are the same key.
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
    } else if (c === "{") stack.push(new Set());
    else if (c === "[") stack.push(null);
    else if (c === "}" || c === "]") stack.pop();
  }
  return undefined;
}
