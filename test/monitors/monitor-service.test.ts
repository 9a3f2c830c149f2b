/**
 * MonitorService contract over both faces of the real service: a grpc-js client over h2c and
 * the REST gateway under /api/v1/monitors. Every RPC is called; ownership by account, the
 * update mask, paging, secret rotation, the plan's active-monitor limit and validation errors
 * (with the keyword column) are checked.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { MonitorService } from "../../gen/threadsight/v1/monitors_pb.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

const KEYWORDS = {
  name: "notion alternatives",
  kind: "keywords",
  query: '"alternative to notion" OR (notion -"love notion")',
  channels: [{ type: "webhook", url: "https://hooks.example.com/in" }],
};

for (const backend of await monitorBackends())
  describe(`MonitorService over gRPC and REST (${backend.name})`, { skip: backend.skip }, () => {
    let svc: RunningService;
    let key: string;
    let otherKey: string;
    let client: grpc.Client;
    before(async () => {
      svc = await startService({ env: await backend.serviceEnv() });
      key = await svc.createKey("pro");
      otherKey = await svc.createKey("pro");
      client = createGrpcJsClient(MonitorService, svc.address);
    });
    after(async () => {
      client.close();
      await svc.stop();
    });

    const call = <K extends keyof typeof MonitorService.method>(name: K, req: object, k = key) =>
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for every unary method
      callUnaryWithMetadata(client, MonitorService.method[name] as any, req as any, { authorization: `Bearer ${k}` });

    async function rest(path: string, body: unknown, k = key): Promise<{ status: number; body: any }> {
      const res = await fetch(`${svc.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${k}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    }

    test("gRPC: create, get, list (paged), update by mask, rotate, deliveries, redeliver, delete", async () => {
      const created = await call("createMonitor", { monitor: KEYWORDS });
      assert.equal(created.error, undefined, created.error?.details);
      const res = created.response as any;
      assert.match(res.monitor.id, /^mon_[0-9A-Za-z]{16}$/);
      assert.match(res.signingSecret, /^whsec_[0-9A-Za-z]{32}$/);
      assert.equal(res.monitor.secretHint, res.signingSecret.slice(-4));
      assert.equal(res.monitor.minRelevance, 0.5);
      assert.equal(res.monitor.minScore, 50);
      assert.equal(created.header.get("x-ratelimit-limit")[0], "100", "managing monitors is metered like any call");
      const id = res.monitor.id as string;

      const got = await call("getMonitor", { monitorId: id });
      assert.equal((got.response as any).monitor.query, KEYWORDS.query);
      assert.equal((got.response as any).monitor.channels[0].url, "https://hooks.example.com/in");

      const foreign = await call("getMonitor", { monitorId: id }, otherKey);
      assert.equal(foreign.error?.code, grpc.status.NOT_FOUND, "another account cannot see it");

      for (const n of [2, 3])
        assert.equal((await call("createMonitor", { monitor: { ...KEYWORDS, name: `m${n}` } })).error, undefined);
      const page1 = (await call("listMonitors", { pageSize: 2 })).response as any;
      assert.deepEqual(
        page1.monitors.map((m: any) => m.name),
        ["notion alternatives", "m2"],
      );
      const page2 = (await call("listMonitors", { pageSize: 2, pageToken: page1.nextPageToken })).response as any;
      assert.deepEqual(
        page2.monitors.map((m: any) => m.name),
        ["m3"],
      );
      assert.equal(page2.nextPageToken, "");
      assert.equal(((await call("listMonitors", {}, otherKey)).response as any).monitors.length, 0);

      const updated = await call("updateMonitor", {
        monitorId: id,
        monitor: { name: "renamed", query: "ignored", paused: true },
        updateMask: { paths: ["name", "paused"] },
      });
      assert.equal(updated.error, undefined, updated.error?.details);
      assert.equal((updated.response as any).monitor.name, "renamed");
      assert.equal((updated.response as any).monitor.query, KEYWORDS.query, "fields outside the mask stay");
      assert.equal((updated.response as any).monitor.paused, true);
      const badMask = await call("updateMonitor", {
        monitorId: id,
        monitor: {},
        updateMask: { paths: ["secret_hint"] },
      });
      assert.equal(badMask.error?.code, grpc.status.INVALID_ARGUMENT);
      assert.match(badMask.error!.details, /update_mask names "secret_hint"/);
      const noMask = await call("updateMonitor", { monitorId: id, monitor: { name: "x" } });
      assert.match(noMask.error!.details, /update_mask is required/);

      const rotated = (await call("rotateMonitorSecret", { monitorId: id })).response as any;
      assert.notEqual(rotated.signingSecret, res.signingSecret);
      assert.ok(rotated.previousValidUntil.seconds > BigInt(Math.floor(Date.now() / 1000)));
      assert.equal(
        ((await call("getMonitor", { monitorId: id })).response as any).monitor.secretHint,
        rotated.signingSecret.slice(-4),
      );

      const deliveries = await call("listDeliveries", { monitorId: id });
      assert.equal(deliveries.error, undefined, deliveries.error?.details);
      assert.deepEqual((deliveries.response as any).deliveries, []);
      const badStatus = await call("listDeliveries", { monitorId: id, status: "sent" });
      assert.match(badStatus.error!.details, /status must be one of delivered, failed, dead_lettered/);
      const redeliver = await call("redeliverEvent", { monitorId: id, eventId: "evt_0000000zzz" });
      assert.equal(redeliver.error?.code, grpc.status.NOT_FOUND);
      assert.match(redeliver.error!.details, /has no event "evt_0000000zzz"/);

      const test = await call("testMonitor", { monitorId: id });
      assert.equal(test.error, undefined, test.error?.details);
      assert.deepEqual((test.response as any).events, [], "an empty index has nothing to match");

      assert.equal((await call("deleteMonitor", { monitorId: id })).error, undefined);
      assert.equal((await call("getMonitor", { monitorId: id })).error?.code, grpc.status.NOT_FOUND);
      assert.equal((await call("deleteMonitor", { monitorId: id })).error?.code, grpc.status.NOT_FOUND);
    });

    test("gRPC: validation names the field and rule; keyword errors point at the column", async () => {
      const cases: [object, RegExp][] = [
        [{ ...KEYWORDS, kind: "regex" }, /^monitor\.kind must be one of search, leads, keywords, got "regex"$/],
        [
          { ...KEYWORDS, query: "slack AND (teams" },
          /^monitor\.query is not a valid keyword expression: missing "\)" for the "\(" here .* at column 11$/,
        ],
        [{ ...KEYWORDS, name: "" }, /^monitor\.name must be 1\.\.100 characters/],
        [
          { ...KEYWORDS, kind: "search", query: "crm for dentists", minRelevance: 1.5 },
          /^monitor\.min_relevance must be between 0 and 1, got 1\.5$/,
        ],
        [
          { ...KEYWORDS, filter: { sentiments: ["angry"] } },
          /^monitor\.filter\.sentiments\[0\] must be one of "positive", "neutral", "negative", got "angry"$/,
        ],
        [
          { ...KEYWORDS, filter: { subforums: ["sales"], excludeSubforums: ["sales"] } },
          /^monitor\.filter\.exclude_subforums lists "sales", which the subforums filter includes/,
        ],
        [
          { ...KEYWORDS, filter: { startDate: "2024-02-30" } },
          /^monitor\.filter\.start_date is not a real calendar date: "2024-02-30"$/,
        ],
        [
          { ...KEYWORDS, channels: [{ type: "webhook", url: "ftp://x" }] },
          /^monitor\.channels\[0\]\.url must use https \(or http\), got ftp:$/,
        ],
      ];
      for (const [monitor, message] of cases) {
        const out = await call("createMonitor", { monitor });
        assert.equal(out.error?.code, grpc.status.INVALID_ARGUMENT, JSON.stringify(monitor));
        assert.match(out.error!.details, message);
      }
      assert.match((await call("createMonitor", {})).error!.details, /^monitor is required$/);
      const digest = await call("createMonitor", {
        monitor: { ...KEYWORDS, channels: [{ type: "email", email: "a@example.com", emailMode: "digest" }] },
      });
      assert.equal(digest.error, undefined, digest.error?.details);
      const digestChannel = (digest.response as any).monitor.channels[0];
      assert.equal(digestChannel.emailMode, "digest");
      assert.equal(digestChannel.digestInterval, "hourly", "the default interval");
      const daily = await call("createMonitor", {
        monitor: {
          ...KEYWORDS,
          paused: true,
          channels: [{ type: "email", email: "a@example.com", emailMode: "digest", digestInterval: "daily" }],
        },
      });
      assert.equal((daily.response as any).monitor.channels[0].digestInterval, "daily");
      const weekly = await call("createMonitor", {
        monitor: {
          ...KEYWORDS,
          channels: [{ type: "email", email: "a@example.com", emailMode: "digest", digestInterval: "weekly" }],
        },
      });
      assert.equal(weekly.error?.code, grpc.status.INVALID_ARGUMENT);
      assert.match(
        weekly.error!.details,
        /^monitor\.channels\[0\]\.digest_interval must be one of hourly, daily, got "weekly"$/,
      );
      const email = await call("createMonitor", {
        monitor: { ...KEYWORDS, paused: true, channels: [{ type: "email", email: "a@example.com" }] },
      });
      assert.equal(email.error, undefined, email.error?.details);
      assert.equal((email.response as any).monitor.channels[0].emailMode, "instant");
    });

    test("the plan's active-monitor limit is enforced; a paused monitor does not count", async () => {
      // variant-b (the default catalog) allows Free one active monitor.
      const free = await svc.createKey("free");
      assert.equal((await call("createMonitor", { monitor: KEYWORDS }, free)).error, undefined);
      const paused = await call("createMonitor", { monitor: { ...KEYWORDS, paused: true } }, free);
      assert.equal(paused.error, undefined, paused.error?.details);
      const over = await call("createMonitor", { monitor: KEYWORDS }, free);
      assert.equal(over.error?.code, grpc.status.PERMISSION_DENIED);
      assert.match(over.error!.details, /the Free plan allows 1 active monitors and this account has 1/);
    });

    test("a plan whose max_active_monitors is null (Enterprise) has no active-monitor limit", async () => {
      const enterprise = await svc.createKey("enterprise");
      for (let i = 0; i < 30; i++) {
        const made = await call("createMonitor", { monitor: { ...KEYWORDS, name: `e${i}` } }, enterprise);
        assert.equal(made.error, undefined, made.error?.details);
      }
    });

    test("REST: every route, the envelope and the error shape", async () => {
      const created = await rest("/api/v1/monitors", {
        monitor: {
          ...KEYWORDS,
          kind: "leads",
          query: "looking for a CRM",
          min_score: 70,
          filter: { lead_types: ["buying_intent"], min_upvotes: 3 },
        },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.success, true);
      const m = created.body.data.monitor;
      assert.equal(m.kind, "leads");
      assert.equal(m.min_score, 70);
      assert.equal(m.filter.min_upvotes, 3);
      assert.deepEqual(m.filter.lead_types, ["buying_intent"]);
      assert.deepEqual(m.filter.sources, [], "the filter is a whole PostFilter in responses");
      assert.match(created.body.data.signing_secret, /^whsec_/);

      const got = await rest("/api/v1/monitors/get", { monitor_id: m.id });
      assert.equal(got.body.data.monitor.name, KEYWORDS.name);
      const listed = await rest("/api/v1/monitors/list", { page_size: 100 });
      assert.ok(listed.body.data.monitors.some((x: any) => x.id === m.id));
      const updated = await rest("/api/v1/monitors/update", {
        monitor_id: m.id,
        monitor: { min_score: 80, filter: { subforums: ["sales"] } },
        update_mask: "minScore,filter",
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.data.monitor.min_score, 80);
      assert.deepEqual(updated.body.data.monitor.filter.subforums, ["sales"]);
      assert.deepEqual(updated.body.data.monitor.filter.lead_types, [], "the mask replaces the filter as a whole");
      const rotated = await rest("/api/v1/monitors/rotate-secret", { monitor_id: m.id });
      assert.match(rotated.body.data.signing_secret, /^whsec_/);
      assert.equal((await rest("/api/v1/monitors/deliveries", { monitor_id: m.id })).body.data.deliveries.length, 0);
      const redeliver = await rest("/api/v1/monitors/redeliver", { monitor_id: m.id, event_id: "evt_nope" });
      assert.equal(redeliver.status, 404);
      assert.equal(redeliver.body.success, false);
      assert.equal(redeliver.body.error.code, "not_found");
      const tested = await rest("/api/v1/monitors/test", { monitor_id: m.id, days: 3 });
      assert.equal(tested.status, 200, JSON.stringify(tested.body));
      assert.deepEqual(tested.body.data, { events: [], scanned: 0, matched: 0 });

      const foreign = await rest("/api/v1/monitors/delete", { monitor_id: m.id }, otherKey);
      assert.equal(foreign.status, 404);
      const bad = await rest("/api/v1/monitors", { monitor: { ...KEYWORDS, query: "foo:bar" } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /unknown field "foo:".* at column 1$/);
      const typo = await rest("/api/v1/monitors/get", { monitorid: m.id });
      assert.equal(typo.status, 400);
      assert.match(typo.body.error.message, /unknown field "monitorid" \(did you mean "monitor_id"\?\)/);
      const anon = await fetch(`${svc.url}/api/v1/monitors/list`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(anon.status, 401);

      assert.equal((await rest("/api/v1/monitors/delete", { monitor_id: m.id })).body.data.monitor_id, m.id);
      assert.equal((await rest("/api/v1/monitors/get", { monitor_id: m.id })).status, 404);
    });
  });
