/**
 * ListMonitors and ListDeliveries page past a thousand rows with no gap and no repeat, over the
 * real gRPC service: pages continue after the last row they returned (a keyset), so there is no
 * offset to outgrow, and attempts recorded while a client pages do not shift its next page.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { MonitorService } from "../../gen/threadsight/v1/monitors_pb.js";
import type { StoredMonitor } from "../../src/monitors/monitor-spec.js";
import { callUnaryWithMetadata, createGrpcJsClient } from "../grpc/grpc-js-client.js";
import { monitorBackends } from "../harness/monitor-backends.js";
import type { RunningService } from "../harness/service.js";
import { startService } from "../harness/service.js";

/** More rows than the search side's paging depth, so an offset limit would show. */
const ROWS = 1_234;
const PAGE = 100;

for (const backend of await monitorBackends())
  describe(`monitor lists page beyond 1000 rows (${backend.name})`, { skip: backend.skip }, () => {
    let svc: RunningService;
    let key: string;
    let client: grpc.Client;
    let first: StoredMonitor;
    before(async () => {
      svc = await startService({ env: await backend.serviceEnv() });
      key = await svc.createKey("pro");
      client = createGrpcJsClient(MonitorService, svc.address);
      const created = await call("createMonitor", {
        monitor: { name: "seed", kind: "keywords", query: "notion", paused: true },
      });
      assert.equal(created.error, undefined, created.error?.details);
      first = (await svc.service.monitors.byId((created.response as any).monitor.id))!;
    });
    after(async () => {
      client.close();
      await svc.stop();
    });

    const call = <K extends keyof typeof MonitorService.method>(name: K, req: object) =>
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for every unary method
      callUnaryWithMetadata(client, MonitorService.method[name] as any, req as any, { authorization: `Bearer ${key}` });

    test("ListMonitors: every monitor once, oldest first, also with equal creation times", async () => {
      // Written straight to the service's store: the plan's call limit would not allow this many creates.
      // Half share one creation time, so the id breaks the tie.
      for (let i = 1; i < ROWS; i++) {
        await svc.service.monitors.create({
          ...first,
          id: `mon_page${String(i).padStart(12, "0")}`,
          name: `m${i}`,
          created: first.created + (i < ROWS / 2 ? i : ROWS / 2),
        });
      }
      const seen: string[] = [];
      let token = "";
      do {
        const out = await call("listMonitors", { pageSize: PAGE, pageToken: token });
        assert.equal(out.error, undefined, out.error?.details);
        const res = out.response as any;
        seen.push(...res.monitors.map((m: any) => m.id as string));
        token = res.nextPageToken;
      } while (token !== "");
      assert.equal(seen.length, ROWS);
      assert.equal(new Set(seen).size, ROWS, "no monitor twice");
      assert.equal(seen[0], first.id);
      assert.equal(seen.at(-1), `mon_page${String(ROWS - 1).padStart(12, "0")}`);
    });

    test("ListDeliveries: every attempt once, newest first, while new attempts are recorded", async () => {
      const store = svc.service.monitors;
      const [event] = await store.append([{ monitorId: first.id, postId: "p1", payload: "{}", channels: 1 }], 1);
      assert.ok(event);
      const record = (attempt: number) =>
        store.recordAttempt(
          {
            eventId: event.id,
            monitorId: first.id,
            channel: "webhook",
            attempt,
            status: "failed",
            responseCode: 500,
            latencyMs: 1,
            at: attempt,
            error: "HTTP 500",
          },
          0,
          { kind: "retry", at: attempt + 1 },
        );
      for (let a = 1; a <= ROWS; a++) await record(a);
      const seen: number[] = [];
      let token = "";
      let extra = ROWS;
      do {
        const out = await call("listDeliveries", { monitorId: first.id, pageSize: PAGE, pageToken: token });
        assert.equal(out.error, undefined, out.error?.details);
        const res = out.response as any;
        seen.push(...res.deliveries.map((d: any) => d.attempt as number));
        token = res.nextPageToken;
        // A newer attempt between two pages belongs before the first page, not in the next one.
        await record(++extra);
      } while (token !== "");
      assert.deepEqual(
        seen,
        Array.from({ length: ROWS }, (_, i) => ROWS - i),
      );
      const filtered = await call("listDeliveries", { monitorId: first.id, status: "delivered" });
      assert.deepEqual((filtered.response as any).deliveries, []);
      const forged = await call("listDeliveries", { monitorId: first.id, pageToken: "eyJhIjoiMSJ9.bad" });
      assert.equal(forged.error?.code, grpc.status.INVALID_ARGUMENT);
      assert.match(forged.error!.details, /page_token is not a token this service issued/);
    });
  });
