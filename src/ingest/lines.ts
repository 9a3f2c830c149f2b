/**
 * Splits a byte stream into lines (LF or CRLF) without holding more than one line in memory.
 * Decoding is UTF-8 with multi-byte characters split across chunks handled by StringDecoder;
 * a leading byte-order mark is dropped.
 */
import { StringDecoder } from "node:string_decoder";
import type { ByteSource } from "./read-item.js";

/** A line and its 1-based number. */
export interface Line {
  text: string;
  number: number;
}

/** Yields every line, including empty ones, with its number. A final line without LF is yielded. */
export async function* lines(bytes: ByteSource): AsyncGenerator<Line> {
  const decoder = new StringDecoder("utf8");
  let carry = "";
  let number = 0;
  let first = true;
  const emit = function* (text: string): Generator<Line> {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) {
        carry = text.slice(start);
        return;
      }
      let line = text.slice(start, nl);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      number += 1;
      yield { text: line, number };
      start = nl + 1;
    }
  };
  for await (const chunk of bytes) {
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    yield* emit(carry + text);
  }
  const rest = carry + decoder.end();
  carry = "";
  yield* emit(rest);
  if (carry.length > 0) {
    number += 1;
    yield { text: carry.endsWith("\r") ? carry.slice(0, -1) : carry, number };
  }
}
