/**
 * Stack Exchange questions as JSON Lines (the collapsed-stacks archives of onstartups and
 * startups.stackexchange): id, community, title, body (markdown, occasionally HTML), author,
 * score, created_date (a UTC day), answer_count, comment_count, permalink_original, archive_url.
 * Question ids restart at 1 in every community, so the native id is `<community>:<id>`; the
 * community is the subforum; answers are not separate posts. `comments` counts the replies a
 * question drew: answers plus comments on the question (comment_count is null in some archives).
 * The archives end an unanswered question's body with their own page furniture ("## No Answers",
 * "There were no answers to this question.", a rule and the CC BY-SA notice); it is cut off, since
 * the asker never wrote it and, kept, it made "licensed" and "by-sa" trending keywords and put the
 * same sentences into 439 posts' embeddings. Likewise the site's "Possible Duplicate" box, which it
 * inserted above the asker's text and closed with an "End of automatically inserted text" comment
 * (73 questions): it names another question, whose title then read as this asker's request.
 */
import { postId } from "../../model/post.js";
import { anyTimeToMs, count, isObject, text } from "../field-values.js";
import { isJsonRecord, jsonRecords } from "../json-records.js";
import { decodeEntities, markdownToText, singleLine } from "../plain-text.js";
import type { ByteSource, ReadItem } from "../read-item.js";
import { skip } from "../read-item.js";

const ARCHIVE_FOOTER =
  /(?:^|\n)[ \t]*#{1,6}[ \t]*No Answers[ \t]*\n\s*There were no answers to this question\.\s*(?:\n[ \t]*-{3,}[ \t]*\n\s*All content is licensed under [^\n]*)?\s*$/;

const INSERTED_BOX_END = /<!--\s*End of automatically inserted text\s*-->/i;

/**
 * The body without what the site and the archive added around the asker's text: a leading box
 * closed by the "End of automatically inserted text" comment, and the trailing "no answers"
 * notice with its licence line.
 */
function withoutArchiveFurniture(body: string): string {
  const boxEnd = INSERTED_BOX_END.exec(body);
  const text = boxEnd === null ? body : body.slice(boxEnd.index + boxEnd[0].length);
  return text.replace(ARCHIVE_FOOTER, "");
}

function question(record: unknown, line: number): ReadItem {
  if (!isObject(record)) return skip(line, "bad_json", "not a JSON object");
  const id = text(record["id"]);
  const community = text(record["community"]) ?? text(record["source"]);
  if (id === undefined || community === undefined)
    return skip(line, "missing_id", id === undefined ? undefined : `id ${id} without community`);
  const nativeId = `${community}:${id}`;
  const title = text(record["title"]);
  if (title === undefined) return skip(line, "missing_title", `id ${nativeId}`);
  const created = anyTimeToMs(record["created_date"] ?? record["creation_date"]);
  if (created === undefined)
    return skip(line, "bad_date", `id ${nativeId}: created_date ${JSON.stringify(record["created_date"] ?? null)}`);
  const body = typeof record["body"] === "string" ? withoutArchiveFurniture(record["body"]) : "";
  return {
    line,
    post: {
      id: postId("stackexchange", nativeId),
      source: "stackexchange",
      nativeId,
      title: singleLine(decodeEntities(title)),
      content: markdownToText(body, { html: true }),
      subforum: community,
      author: text(record["author"]) ?? "",
      upvotes: count(record["score"]),
      comments: count(record["answer_count"]) + count(record["comment_count"]),
      created,
      url: text(record["archive_url"]) ?? text(record["permalink_original"]) ?? "",
    },
  };
}

/** Reads a Stack Exchange questions JSONL stream. */
export async function* readStackExchangeJsonl(bytes: ByteSource): AsyncGenerator<ReadItem> {
  for await (const record of jsonRecords(bytes)) {
    yield isJsonRecord(record) ? question(record.value, record.line) : record;
  }
}
