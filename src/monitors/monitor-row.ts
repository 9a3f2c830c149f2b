/**
 * A monitor as a database row, shared by the SQLite and PostgreSQL stores: the spec (name, kind,
 * query, thresholds, filter, channels) is one JSON text column, the rest are columns of their own.
 * Rows written before the filter became a PostFilter are read through their legacy fields.
 */
import type { FilterParams } from "../core/request-rules.js";
import { emptyFilter } from "./monitor-filters.js";
import type { ChannelSpec, StoredMonitor } from "./monitor-spec.js";

/** The columns of a monitor row, with booleans and times already in JavaScript types. */
export interface MonitorColumns {
  id: string;
  account_id: string;
  spec: string;
  paused: boolean;
  paused_reason: string;
  secret: string;
  previous_secret: string;
  previous_secret_until: number;
  created: number;
  updated: number;
}

type SpecJson = Omit<
  StoredMonitor,
  | "id"
  | "accountId"
  | "paused"
  | "pausedReason"
  | "secret"
  | "previousSecret"
  | "previousSecretUntil"
  | "created"
  | "updated"
> & { channels: ChannelSpec[] };

/** The filter fields a spec held before the filter became a PostFilter. */
interface LegacyFilterFields {
  leadTypes?: string[];
  sources?: string[];
  subforums?: string[];
  excludeSubforums?: string[];
  authors?: string[];
  minUpvotes?: number | null;
  minComments?: number | null;
  sentiments?: string[];
}

/** A spec column as read: rows written before the filter was a PostFilter have the legacy fields. */
type SpecRow = Omit<SpecJson, "filter"> & { filter?: FilterParams } & LegacyFilterFields;

/** A spec row's filter, reading the fields of rows written before the filter was a PostFilter. */
function filterOf(spec: SpecRow): FilterParams {
  if (spec.filter !== undefined) return spec.filter;
  return {
    ...emptyFilter(),
    sources: spec.sources ?? [],
    subforums: spec.subforums ?? [],
    excludeSubforums: spec.excludeSubforums ?? [],
    authors: spec.authors ?? [],
    sentiments: spec.sentiments ?? [],
    leadTypes: spec.leadTypes ?? [],
    ...(typeof spec.minUpvotes === "number" ? { minUpvotes: spec.minUpvotes } : {}),
    ...(typeof spec.minComments === "number" ? { minComments: spec.minComments } : {}),
  };
}

/** The monitor a row holds. */
export function monitorFromColumns(r: MonitorColumns): StoredMonitor {
  const spec = JSON.parse(r.spec) as SpecRow;
  return {
    name: spec.name,
    kind: spec.kind,
    query: spec.query,
    minRelevance: spec.minRelevance,
    minScore: spec.minScore,
    filter: filterOf(spec),
    channels: spec.channels,
    id: r.id,
    accountId: r.account_id,
    paused: r.paused,
    pausedReason: r.paused_reason,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretUntil: r.previous_secret_until,
    created: r.created,
    updated: r.updated,
  };
}

/** The spec column of a monitor. */
export function specJson(m: StoredMonitor): string {
  const {
    id: _id,
    accountId: _a,
    paused: _p,
    pausedReason: _r,
    secret: _s,
    previousSecret: _ps,
    previousSecretUntil: _pu,
    created: _c,
    updated: _u,
    ...spec
  } = m;
  return JSON.stringify(spec);
}
