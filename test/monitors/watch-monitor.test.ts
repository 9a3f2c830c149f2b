/**
 * WatchMonitor over gRPC (a grpc-js client) and as Server-Sent Events (fetch), against the real
 * service and its outbox: clients that disconnect and resume get every event after their last
 * id, then live ones, with no gap and no duplicate (counted by event id); auth, ownership and
 * the resume id are checked before the stream opens.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { MonitorService, WatchMonitorRequestSchema } from "../../gen/threadsight/v1/monitors_pb.js";
import type { IndexedPost } from "../../src/model/post.js";
import { eventPayload } from "../../src/monitors/monitor-event.js";
import type { StoredEvent } from "../../src/monitors/monitor-store.js";
import { loadOpenApiDocument, OpenApiResponses } from "../contract/openapi-validator.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

for (const backend of await monitorBackends())
  describe(`WatchMonitor over gRPC and SSE (${backend.name})`, { skip: backend.skip }, () => {
    let svc: RunningService;
    let key: string;
    let otherKey: string;
    let client: grpc.Client;
    let monitorId: string;
    let posts = 0;
    const written: StoredEvent[] = [];

    before(async () => {
      svc = await startService({ env: await backend.serviceEnv() });
      key = await svc.createKey("pro");
      otherKey = await svc.createKey("pro");
      client = createGrpcJsClient(MonitorService, svc.address);
      const created = await callUnaryWithMetadata(
        client,
        MonitorService.method.createMonitor,
        { monitor: { name: "watched", kind: "keywords", query: "notion" } },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(created.error, undefined, created.error?.details);
      monitorId = created.response!.monitor!.id;
    });
    after(async () => {
      client.close();
      await svc.stop();
    });

    /** Appends `n` events to the outbox, as the percolator does after an upsert. */
    async function write(n: number): Promise<StoredEvent[]> {
      const events = Array.from({ length: n }, () => {
        const id = `reddit:p${++posts}`;
        return {
          monitorId,
          postId: id,
          payload: JSON.stringify({
            origin: "ingest",
            post: { id, title: `post ${posts} about notion` },
            reason: { kind: "keywords", matched_terms: ["notion"], source: "reddit" },
          }),
          channels: 0,
        };
      });
      const out = await svc.service.monitors.append(events, Date.now());
      written.push(...out);
      return out;
    }

    /** Opens a gRPC stream; `received` fills with the ids of its events. */
    function watch(afterEventId: string, k = key) {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${k}`);
      const fn = (client as unknown as Record<string, (...a: unknown[]) => grpc.ClientReadableStream<any>>)
        .WatchMonitor!;
      const call = fn.call(client, create(WatchMonitorRequestSchema, { monitorId, afterEventId }), md, {});
      const received: string[] = [];
      let opened = 0;
      const waiters: (() => void)[] = [];
      call.on("data", (m: any) => {
        if (m.event === undefined) opened++;
        else received.push(m.event.id);
        for (const w of waiters.splice(0)) w();
      });
      const error = new Promise<grpc.ServiceError>((resolve) => call.on("error", resolve));
      async function until(pred: () => boolean, what: string): Promise<void> {
        const deadline = Date.now() + 20_000;
        while (!pred()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${received.join(",")}`);
          await new Promise<void>((r) => {
            waiters.push(r);
            setTimeout(r, 200);
          });
        }
      }
      return { call, received, error, until, opened: () => opened };
    }

    test("gRPC: new events only, then resume after the last id with no gap and no duplicate", async () => {
      await write(3);
      const first = watch("");
      await first.until(() => first.opened() > 0, "the open message");
      const live = await write(2);
      await first.until(() => first.received.length === 2, "two live events");
      assert.deepEqual(
        first.received,
        live.map((e) => e.id),
        "events written before the stream opened are not sent without a resume id",
      );
      first.call.cancel();
      const missed = await write(2);
      const second = watch(first.received.at(-1)!);
      await second.until(() => second.received.length === 2, "the missed events");
      assert.deepEqual(
        second.received,
        missed.map((e) => e.id),
      );
      const more = await write(1);
      await second.until(() => second.received.length === 3, "a live event after the replay");
      assert.equal(second.received[2], more[0]!.id);
      second.call.cancel();
      const all = [...first.received, ...second.received];
      assert.equal(new Set(all).size, all.length, "no duplicate");
      assert.deepEqual(
        all,
        written.slice(3).map((e) => e.id),
        "no gap",
      );

      const replay = watch(written[0]!.id);
      await replay.until(() => replay.received.length === written.length - 1, "the whole replay");
      assert.deepEqual(
        replay.received,
        written.slice(1).map((e) => e.id),
      );
      replay.call.cancel();
    });

    test("gRPC: auth, ownership and the resume id are checked", async () => {
      const foreign = watch("", otherKey);
      assert.equal((await foreign.error).code, grpc.status.NOT_FOUND);
      const bad = watch("evt_nope");
      const err = await bad.error;
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.match(err.details, /^after_event_id must be an event id such as "evt_000000001a", got "evt_nope"$/);
      const anon = watch("", "not-a-key");
      assert.equal((await anon.error).code, grpc.status.UNAUTHENTICATED);
    });

    /** Opens the SSE route; `ids` fills with the `id:` of each message. */
    async function sse(headers: Record<string, string>, query = "") {
      const controller = new AbortController();
      const res = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events${query}`, {
        headers: { authorization: `Bearer ${key}`, ...headers },
        signal: controller.signal,
      });
      const ids: string[] = [];
      const data: any[] = [];
      let open = false;
      const pump = (async () => {
        if (res.body === null || res.status !== 200) return;
        const decoder = new TextDecoder();
        let buffer = "";
        try {
          const reader = res.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            let end: number;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (block.includes(": open")) open = true;
              const id = /^id: (.*)$/m.exec(block)?.[1];
              const d = /^data: (.*)$/m.exec(block)?.[1];
              if (id !== undefined && d !== undefined) {
                ids.push(id);
                data.push(JSON.parse(d));
              }
            }
          }
        } catch {
          // aborted by the test
        }
      })();
      async function until(pred: () => boolean, what: string): Promise<void> {
        const deadline = Date.now() + 20_000;
        while (!pred()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${ids.join(",")}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      return {
        res,
        ids,
        data,
        until,
        isOpen: () => open,
        close: async () => {
          controller.abort();
          await pump;
        },
      };
    }

    test("SSE: since, then Last-Event-ID after a disconnect; no gap, no duplicate", async () => {
      const since = written.at(-2)!.id;
      const a = await sse({}, `?since=${since}`);
      assert.equal(a.res.status, 200);
      assert.match(a.res.headers.get("content-type") ?? "", /^text\/event-stream/);
      assert.equal(a.res.headers.get("x-ratelimit-limit"), "100", "a stream is metered as one call");
      await a.until(() => a.ids.length === 1, "the event after since");
      const live = await write(2);
      await a.until(() => a.ids.length === 3, "two live events");
      assert.equal(a.data[1].id, live[0]!.id);
      assert.equal(a.data[1].monitor_id, monitorId);
      assert.equal(a.data[1].post.id, "reddit:p" + (posts - 1));
      assert.deepEqual(a.data[1].reason.matched_terms, ["notion"]);
      await a.close();
      const missed = await write(3);
      // What an EventSource does on reconnect: Last-Event-ID, which wins over a stale since.
      const b = await sse({ "last-event-id": a.ids.at(-1)! }, `?since=${since}`);
      await b.until(() => b.ids.length === 3, "the missed events");
      assert.deepEqual(
        b.ids,
        missed.map((e) => e.id),
      );
      const more = await write(1);
      await b.until(() => b.ids.length === 4, "a live event");
      await b.close();
      const all = [...a.ids, ...b.ids];
      assert.equal(new Set(all).size, all.length, "no duplicate");
      const from = written.findIndex((e) => e.id === since) + 1;
      assert.deepEqual(
        all,
        written.slice(from).map((e) => e.id),
        "no gap",
      );
      assert.equal(all.at(-1), more[0]!.id);
    });

    test("SSE: the stream and its errors are what the OpenAPI document says", async () => {
      const checker = new OpenApiResponses(loadOpenApiDocument());
      const route = "/api/v1/monitors/{monitor_id}/events";
      // Events as the percolator renders them from a stored post (eventPayload), every field set.
      const monitor = (await svc.service.monitors.byId(monitorId))!;
      const since = written.at(-1)!.id;
      const full = await svc.service.monitors.append(
        [1, 2].map((n) => {
          const id = `reddit:full${n}`;
          const post: IndexedPost = {
            id,
            source: "reddit",
            nativeId: `full${n}`,
            title: `Notion alternative ${n}?`,
            content: "We outgrew notion.",
            subforum: "SaaS",
            author: "jane",
            upvotes: 3,
            comments: 1,
            created: Date.UTC(2026, 0, n),
            url: `https://example.com/full${n}`,
            sentiment: "negative",
            sentimentScore: -0.4,
            leadType: "solution_request",
            leadScore: 70,
            painPoint: "",
            opportunity: "",
            industry: "",
            targetProduct: "",
            topicId: "",
            vector: new Float32Array(4),
          };
          return {
            monitorId,
            postId: id,
            payload: eventPayload({ monitor, post, relevance: 1, matchedTerms: ["notion"] }, "ingest"),
            channels: 0,
          };
        }),
        Date.now(),
      );
      written.push(...full);
      const a = await sse({}, `?since=${since}`);
      try {
        await a.until(() => a.ids.length === 2, "two stored events");
        assert.deepEqual(checker.checkEventStream(route, "GET", a.res.headers, a.data), []);
        // The check can fail: an event missing a required field is reported.
        const broken = { ...a.data[0] };
        delete broken.post;
        assert.notDeepEqual(checker.checkEventStream(route, "GET", a.res.headers, [broken]), []);
      } finally {
        await a.close();
      }
      for (const [headers, query, status] of [
        [{}, "", 401],
        [{ authorization: `Bearer ${otherKey}` }, "", 404],
        [{ authorization: `Bearer ${key}` }, "?since=evt_x", 400],
      ] as const) {
        const res = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events${query}`, { headers });
        assert.equal(res.status, status);
        assert.deepEqual(checker.check(route, "GET", { status, headers: res.headers, body: await res.json() }), []);
      }
    });

    test("SSE: errors before the stream opens answer in the envelope", async () => {
      const anon = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events`);
      assert.equal(anon.status, 401);
      assert.equal(((await anon.json()) as any).success, false);
      const foreign = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events`, {
        headers: { authorization: `Bearer ${otherKey}` },
      });
      assert.equal(foreign.status, 404);
      const typo = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events?after=evt_0000000001`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(typo.status, 400);
      assert.match(
        ((await typo.json()) as any).error.message,
        /unknown query parameter "after"; this route reads: since/,
      );
      const bad = await fetch(`${svc.url}/api/v1/monitors/${monitorId}/events?since=evt_x`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as any).error.message, /after_event_id must be an event id/);
    });
  });
