/**
 * MonitorService handlers: map the request to the monitors domain (monitors-core.ts) and the
 * result back. The caller's account owns what it creates; its plan sets how many monitors may be
 * active. TestMonitor is a dry run (monitor-dry-run.ts); WatchMonitor follows the outbox
 * (event-follower.ts).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { create, fromJson } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { PostFilter } from "../../gen/threadsight/v1/filter_pb.js";
import { PostFilterSchema } from "../../gen/threadsight/v1/filter_pb.js";
import type {
  Monitor,
  MonitorService,
  MonitorSettings,
  TestMonitorRequest,
} from "../../gen/threadsight/v1/monitors_pb.js";
import {
  CreateMonitorResponseSchema,
  DeleteMonitorResponseSchema,
  DeliverySchema,
  GetMonitorResponseSchema,
  ListDeliveriesResponseSchema,
  ListMonitorsResponseSchema,
  MonitorChannelSchema,
  MonitorEventSchema,
  MonitorSchema,
  MonitorSettingsSchema,
  RedeliverEventResponseSchema,
  RotateMonitorSecretResponseSchema,
  TestMonitorResponseSchema,
  UpdateMonitorResponseSchema,
  WatchMonitorResponseSchema,
} from "../../gen/threadsight/v1/monitors_pb.js";
import { CALLER } from "../auth/context.js";
import type { PageTokens } from "../core/page-token.js";
import { requestFingerprint } from "../core/page-token.js";
import type { FilterParams } from "../core/request-rules.js";
import { AppError } from "../errors/app-error.js";
import { toConnectError } from "../errors/to-connect.js";
import type { PlanCatalog } from "../limits/plan-catalog.js";
import { findPlan } from "../limits/plan-catalog.js";
import type { DigestInterval } from "../monitors/email-digest.js";
import { DEFAULT_DIGEST_INTERVAL } from "../monitors/email-digest.js";
import type { MonitorDryRun } from "../monitors/monitor-dry-run.js";
import { eventJson } from "../monitors/monitor-event.js";
import { emptyFilter } from "../monitors/monitor-filters.js";
import type { ChannelSpec, MonitorKind, MonitorSpec, StoredMonitor } from "../monitors/monitor-spec.js";
import { DEFAULT_MIN_RELEVANCE, DEFAULT_MIN_SCORE, validateSpec } from "../monitors/monitor-spec.js";
import type { MonitorPosition } from "../monitors/monitor-store.js";
import type { MonitorsCore, Owner } from "../monitors/monitors-core.js";
import { timestamp } from "./timestamps.js";

/** Default and largest page sizes of the list calls. */
const PAGE_DEFAULT = 20;
const PAGE_MAX = 100;

/** Fields of MonitorSettings an update_mask may name. */
const MASKABLE = ["name", "kind", "query", "min_relevance", "min_score", "filter", "channels", "paused"] as const;

function owner(ctx: HandlerContext, catalog: PlanCatalog): Owner {
  const caller = ctx.values.get(CALLER);
  if (caller === undefined)
    throw new AppError("UNAUTHENTICATED", "an API key is required: send Authorization: Bearer <API_KEY>");
  const plan = findPlan(catalog, caller.plan);
  return {
    accountId: caller.accountId,
    // null is the catalog's "unlimited"; only a plan missing from the catalog allows none.
    maxActiveMonitors: plan === undefined ? 0 : plan.maxActiveMonitors,
    planName: plan?.name ?? caller.plan,
  };
}

function pageSize(v: number | undefined): number {
  if (v === undefined) return PAGE_DEFAULT;
  if (v < 1 || v > PAGE_MAX)
    throw new AppError("OUT_OF_RANGE", `page_size must be between 1 and ${PAGE_MAX}, got ${v}`, { field: "page_size" });
  return v;
}

function badToken(): AppError {
  return new AppError("INVALID_ARGUMENT", "page_token is not a token this service issued; start again without it", {
    field: "page_token",
  });
}

/** The monitor a ListMonitors token continues after ("<created>.<id>"). */
function positionOf(key: string | undefined): MonitorPosition | undefined {
  if (key === undefined) return undefined;
  const dot = key.indexOf(".");
  const created = Number(key.slice(0, dot));
  if (dot < 1 || !Number.isSafeInteger(created)) throw badToken();
  return { created, id: key.slice(dot + 1) };
}

/** The attempt a ListDeliveries token continues after (its row number). */
function attemptOf(key: string | undefined): number | undefined {
  if (key === undefined) return undefined;
  const id = Number(key);
  if (!Number.isSafeInteger(id) || id < 1) throw badToken();
  return id;
}

function channelsOf(s: MonitorSettings): ChannelSpec[] {
  return s.channels.map((c) => {
    const emailMode = (c.emailMode === "" ? "instant" : c.emailMode) as ChannelSpec["emailMode"];
    const digest = c.type === "email" && emailMode === "digest";
    const interval = c.digestInterval === "" && digest ? DEFAULT_DIGEST_INTERVAL : c.digestInterval;
    return {
      type: c.type as ChannelSpec["type"],
      url: c.url,
      email: c.email,
      emailMode,
      ...(interval !== "" ? { digestInterval: interval as DigestInterval } : {}),
    };
  });
}

/** A PostFilter message as the filter rules read it (absent: restricts nothing). */
function filterParams(f: PostFilter | undefined): FilterParams {
  if (f === undefined) return emptyFilter();
  return {
    startDate: f.startDate,
    endDate: f.endDate,
    sources: [...f.sources],
    subforums: [...f.subforums],
    excludeSubforums: [...f.excludeSubforums],
    authors: [...f.authors],
    ...(f.minUpvotes !== undefined ? { minUpvotes: f.minUpvotes } : {}),
    ...(f.minComments !== undefined ? { minComments: f.minComments } : {}),
    sentiments: [...f.sentiments],
    leadTypes: [...f.leadTypes],
  };
}

/** The spec a settings message describes, defaults filled in. */
export function specOf(s: MonitorSettings | undefined): MonitorSpec {
  if (s === undefined) throw new AppError("MISSING_FIELD", "monitor is required", { field: "monitor" });
  return {
    name: s.name,
    kind: s.kind as MonitorKind,
    query: s.query,
    minRelevance: s.minRelevance ?? DEFAULT_MIN_RELEVANCE,
    minScore: s.minScore ?? DEFAULT_MIN_SCORE,
    filter: filterParams(s.filter),
    channels: channelsOf(s),
    paused: s.paused,
  };
}

/** The API shape of a stored monitor. */
export function monitorMessage(m: StoredMonitor): Monitor {
  return create(MonitorSchema, {
    id: m.id,
    name: m.name,
    kind: m.kind,
    query: m.query,
    minRelevance: m.minRelevance,
    minScore: m.minScore,
    filter: create(PostFilterSchema, {
      ...m.filter,
      sources: [...m.filter.sources],
      subforums: [...m.filter.subforums],
      excludeSubforums: [...m.filter.excludeSubforums],
      authors: [...m.filter.authors],
      sentiments: [...m.filter.sentiments],
      leadTypes: [...m.filter.leadTypes],
    }),
    channels: m.channels.map((c) =>
      create(MonitorChannelSchema, {
        type: c.type,
        url: c.url,
        email: c.email,
        emailMode: c.type === "email" ? c.emailMode : "",
        digestInterval:
          c.type === "email" && c.emailMode === "digest" ? (c.digestInterval ?? DEFAULT_DIGEST_INTERVAL) : "",
      }),
    ),
    paused: m.paused,
    pausedReason: m.pausedReason,
    createTime: timestamp(m.created),
    updateTime: timestamp(m.updated),
    secretHint: m.secret.slice(-4),
  });
}

function applyMask(
  current: StoredMonitor,
  paths: readonly string[],
  settings: MonitorSettings | undefined,
): StoredMonitor {
  if (paths.length === 0)
    throw new AppError("MISSING_FIELD", `update_mask is required: name the fields to change (${MASKABLE.join(", ")})`, {
      field: "update_mask",
    });
  const given = specOf(settings ?? create(MonitorSettingsSchema));
  const next: StoredMonitor = { ...current };
  for (const path of paths) {
    if (!(MASKABLE as readonly string[]).includes(path)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `update_mask names "${path}", which is not a field an update may change; allowed: ${MASKABLE.join(", ")}`,
        { field: "update_mask" },
      );
    }
    const key = path.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof MonitorSpec;
    (next as unknown as Record<string, unknown>)[key] = given[key];
  }
  return next;
}

/** The monitor a TestMonitor request names: a saved one, or one given inline. */
async function testedMonitor(core: MonitorsCore, o: Owner, req: TestMonitorRequest): Promise<StoredMonitor> {
  if (req.monitorId !== "" && req.monitor !== undefined)
    throw new AppError("INVALID_ARGUMENT", "give monitor_id or monitor, not both", { field: "monitor" });
  if (req.monitorId !== "") return core.get(o, req.monitorId);
  if (req.monitor === undefined)
    throw new AppError("MISSING_FIELD", "monitor_id or monitor is required", { field: "monitor_id" });
  // An unsaved monitor is checked like a create, without its channels (nothing is sent).
  const spec = { ...specOf(req.monitor), channels: [], paused: false };
  validateSpec(spec);
  return {
    ...spec,
    id: "",
    accountId: o.accountId,
    pausedReason: "",
    secret: "",
    previousSecret: "",
    previousSecretUntil: 0,
    created: 0,
    updated: 0,
  };
}

/** Creates the MonitorService implementation. */
export function monitorService(
  core: MonitorsCore,
  catalog: PlanCatalog,
  pageTokens: PageTokens,
  dryRun: MonitorDryRun,
): Partial<ServiceImpl<typeof MonitorService>> {
  return {
    async testMonitor(req, ctx) {
      const monitor = await testedMonitor(core, owner(ctx, catalog), req);
      const out = await dryRun.run(monitor, req.days, req.limit, ctx.signal);
      const now = new Date().toISOString();
      return create(TestMonitorResponseSchema, {
        events: out.events.map((e) =>
          fromJson(MonitorEventSchema, {
            id: "",
            monitor_id: monitor.id,
            create_time: now,
            ...(JSON.parse(e.payload) as JsonObject),
          }),
        ),
        scanned: out.scanned,
        matched: out.matched,
      });
    },
    async createMonitor(req, ctx) {
      const { monitor, secret } = await core.create(owner(ctx, catalog), specOf(req.monitor));
      return create(CreateMonitorResponseSchema, { monitor: monitorMessage(monitor), signingSecret: secret });
    },
    async getMonitor(req, ctx) {
      return create(GetMonitorResponseSchema, {
        monitor: monitorMessage(await core.get(owner(ctx, catalog), req.monitorId)),
      });
    },
    async listMonitors(req, ctx) {
      const o = owner(ctx, catalog);
      const size = pageSize(req.pageSize);
      const fingerprint = requestFingerprint(["monitors", o.accountId]);
      const after = positionOf(pageTokens.decodeAfter(req.pageToken, fingerprint));
      const rows = await core.list(o, after, size + 1);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return create(ListMonitorsResponseSchema, {
        monitors: page.map(monitorMessage),
        nextPageToken:
          rows.length > size && last !== undefined
            ? pageTokens.encodeAfter(`${last.created}.${last.id}`, fingerprint)
            : "",
      });
    },
    async updateMonitor(req, ctx) {
      const paths = req.updateMask?.paths ?? [];
      const m = await core.update(owner(ctx, catalog), req.monitorId, (current) =>
        applyMask(current, paths, req.monitor),
      );
      return create(UpdateMonitorResponseSchema, { monitor: monitorMessage(m) });
    },
    async deleteMonitor(req, ctx) {
      await core.delete(owner(ctx, catalog), req.monitorId);
      return create(DeleteMonitorResponseSchema, { monitorId: req.monitorId });
    },
    async rotateMonitorSecret(req, ctx) {
      const r = await core.rotateSecret(owner(ctx, catalog), req.monitorId);
      return create(RotateMonitorSecretResponseSchema, {
        signingSecret: r.secret,
        previousValidUntil: timestamp(r.previousValidUntil),
      });
    },
    async listDeliveries(req, ctx) {
      const o = owner(ctx, catalog);
      const size = pageSize(req.pageSize);
      const fingerprint = requestFingerprint(["deliveries", o.accountId, req.monitorId, req.status]);
      const before = attemptOf(pageTokens.decodeAfter(req.pageToken, fingerprint));
      const rows = await core.attempts(o, req.monitorId, req.status, before, size + 1);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return create(ListDeliveriesResponseSchema, {
        deliveries: page.map((a) =>
          create(DeliverySchema, {
            eventId: a.eventId,
            monitorId: a.monitorId,
            channel: a.channel,
            attempt: a.attempt,
            status: a.status,
            responseCode: a.responseCode,
            latencyMs: a.latencyMs,
            attemptTime: timestamp(a.at),
            error: a.error,
          }),
        ),
        nextPageToken:
          rows.length > size && last !== undefined ? pageTokens.encodeAfter(String(last.id), fingerprint) : "",
      });
    },
    async *watchMonitor(req, ctx) {
      let events: Awaited<ReturnType<MonitorsCore["watch"]>>;
      try {
        events = await core.watch(owner(ctx, catalog), req.monitorId, req.afterEventId, ctx.signal);
      } catch (err) {
        // A stream's error is raised while its messages are read, past the interceptor that
        // turns AppErrors into their table codes for unary calls.
        throw toConnectError(err);
      }
      for await (const item of events) {
        yield create(WatchMonitorResponseSchema, {
          ...("event" in item ? { event: fromJson(MonitorEventSchema, eventJson(item.event)) } : {}),
        });
      }
    },
    async redeliverEvent(req, ctx) {
      await core.redeliver(owner(ctx, catalog), req.monitorId, req.eventId);
      return create(RedeliverEventResponseSchema, { eventId: req.eventId });
    },
  };
}
