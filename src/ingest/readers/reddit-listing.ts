/**
 * Reddit API listing JSON: `{kind: "Listing", data: {children: [{kind: "t3", data: {...}}]}}`,
 * as saved from /r/<sub>/new.json and friends. Accepts one listing document, an array of them
 * (the shape of a comments page), or JSON Lines of listings (one saved page a line). Children of
 * other kinds (t1 comments, "more") are not posts. Skips report the listing's line and the
 * child's index.
 */
import { isObject } from "../field-values.js";
import { isJsonRecord, jsonRecords } from "../json-records.js";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";
import { redditSubmission } from "./reddit-post.js";

function* fromThing(thing: unknown, line: number, where: string): Generator<ReadItem> {
  if (Array.isArray(thing)) {
    for (let i = 0; i < thing.length; i += 1) yield* fromThing(thing[i], line, `${where}[${i}]`);
    return;
  }
  if (!isObject(thing)) {
    yield skip(line, "bad_json", `${where} is not an object`);
    return;
  }
  if (thing["kind"] === "Listing") {
    const children = isObject(thing["data"]) ? thing["data"]["children"] : undefined;
    if (!Array.isArray(children)) {
      yield skip(line, "bad_json", `${where}: listing without data.children`);
      return;
    }
    for (let i = 0; i < children.length; i += 1) yield* fromThing(children[i], line, `${where}.children[${i}]`);
    return;
  }
  if (thing["kind"] !== "t3") {
    yield skip(line, "not_a_post", `${where}: kind ${JSON.stringify(thing["kind"])}`);
    return;
  }
  if (!isObject(thing["data"])) {
    yield skip(line, "bad_json", `${where}: t3 without data`);
    return;
  }
  const item = redditSubmission(thing["data"], line);
  if ("skip" in item) item.skip.detail = item.skip.detail === undefined ? where : `${where}: ${item.skip.detail}`;
  yield item;
}

/** Reads listing JSON (document, array, or JSON Lines of listings). */
export async function* readRedditListing(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const item of jsonRecords(bytes, { allowDocument: true })) {
    if (isJsonRecord(item)) yield* fromThing(item.value, item.line, "$");
    else yield item;
  }
}
