/**
 * The connector of each source kind. The record is exhaustive over SourceKind, so a new kind
 * does not compile until its connector is registered.
 */
import { discourseConnector } from "./discourse/discourse-connector.js";
import { hackerNewsConnector } from "./hackernews/hn-connector.js";
import { lemmyConnector } from "./lemmy/lemmy-connector.js";
import { redditConnector } from "./reddit/reddit-connector.js";
import { rssConnector } from "./rss/rss-connector.js";
import type { Connector, SourceKind } from "./source.js";
import { stackExchangeConnector } from "./stackexchange/se-connector.js";

/** Every connector, by kind. */
export const CONNECTORS: Readonly<Record<SourceKind, Connector>> = {
  hackernews: hackerNewsConnector,
  stackexchange: stackExchangeConnector,
  rss: rssConnector,
  discourse: discourseConnector,
  lemmy: lemmyConnector,
  reddit: redditConnector,
};
