/**
 * The JSON of an event: what a webhook receives, what WatchMonitor streams and SSE sends. The
 * post and reason are rendered when the event is written (the post as a semantic search shapes
 * it); id, monitor id and time are added from the outbox row.
 */

import type { JsonObject } from "@bufbuild/protobuf";
import { create, toJson } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { MatchReasonSchema } from "../../gen/threadsight/v1/monitors_pb.js";
import { SemanticSearchResultSchema } from "../../gen/threadsight/v1/search_pb.js";
import { shorten } from "../core/snippet.js";
import type { MonitorMatch } from "./monitor-matcher.js";
import type { StoredEvent } from "./monitor-store.js";

/** What wrote the post. */
export type EventOrigin = "ingest" | "sync" | "reenrich";
/** The origin of a payload: a write, or "test" for what TestMonitor shows without storing it. */
export type PayloadOrigin = EventOrigin | "test";

const JSON_OPTIONS = { useProtoFieldName: true, alwaysEmitImplicit: true } as const;

/** The post as a semantic search result shapes it, in proto JSON. */
function postJson(post: MonitorMatch["post"], relevance: number): JsonObject {
  const result = create(SemanticSearchResultSchema, {
    id: post.id,
    title: post.title,
    content: shorten(post.content),
    subforum: post.subforum,
    upvotes: post.upvotes,
    comments: post.comments,
    created: timestampFromMs(post.created),
    relevance,
    sentiment: post.sentiment,
    url: post.url,
  });
  return toJson(SemanticSearchResultSchema, result, JSON_OPTIONS) as JsonObject;
}

/** The payload text of `match` with its post already rendered. */
function payloadText(match: MonitorMatch, post: JsonObject, origin: PayloadOrigin): string {
  const { monitor } = match;
  const reason = create(MatchReasonSchema, {
    kind: monitor.kind,
    relevance: monitor.kind === "keywords" ? 0 : match.relevance,
    leadScore: match.post.leadScore,
    leadType: match.post.leadType,
    matchedTerms: match.matchedTerms,
    author: match.post.author,
    source: match.post.source,
  });
  return JSON.stringify({ origin, post, reason: toJson(MatchReasonSchema, reason, JSON_OPTIONS) });
}

/** The stored part of an event, as JSON text. */
export function eventPayload(match: MonitorMatch, origin: PayloadOrigin): string {
  return payloadText(match, postJson(match.post, match.relevance), origin);
}

/**
 * The stored parts of a batch's events, equal to {@link eventPayload} of each: a post matched by
 * many monitors is rendered once and only its relevance is set per match (a finite double is
 * the same number in proto JSON), since rendering dominates the cost of writing events.
 */
export function eventPayloads(matches: readonly MonitorMatch[], origin: PayloadOrigin): string[] {
  const rendered = new Map<MonitorMatch["post"], JsonObject>();
  return matches.map((m) => {
    let post = rendered.get(m.post);
    if (post === undefined) {
      post = postJson(m.post, 0);
      rendered.set(m.post, post);
    }
    return payloadText(m, { ...post, relevance: m.relevance }, origin);
  });
}

/** The whole event as a JSON object in MonitorEvent's proto JSON shape. */
export function eventJson(e: StoredEvent): JsonObject {
  const payload = JSON.parse(e.payload) as JsonObject;
  return { id: e.id, monitor_id: e.monitorId, create_time: new Date(e.created).toISOString(), ...payload };
}
