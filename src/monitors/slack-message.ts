/**
 * The Slack incoming-webhook body of an event: a text fallback and one section block linking
 * the post, with the monitor's name and why it matched.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { StoredMonitor } from "./monitor-spec.js";

/** Slack's text escaping: &, < and > are control characters in mrkdwn. */
function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The message for one event. */
export function slackMessage(m: StoredMonitor, event: JsonObject): JsonObject {
  const post = event.post as JsonObject;
  const reason = event.reason as JsonObject;
  const why =
    m.kind === "keywords"
      ? `matched ${(reason.matched_terms as string[]).join(", ")}`
      : `relevance ${Number(post.relevance).toFixed(2)}`;
  const title = esc(String(post.title));
  const text = `${esc(m.name)}: ${title} (${esc(String(post.subforum))}, ${why})`;
  return {
    text,
    blocks: [
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: `*<${String(post.url)}|${title}>*\n${esc(String(post.content).slice(0, 300))}\n_${esc(m.name)} · ${esc(String(post.subforum))} · ${why}_`,
        },
      },
    ],
  };
}
