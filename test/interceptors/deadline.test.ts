/**
 * The server default deadline: withTimeout must give the handler the same signal that
 * AbortSignal.any([signal, AbortSignal.timeout(ms)]) would (same reasons, same order of
 * precedence), and the interceptor must hand it to the handler inside a real Connect router, so
 * a call without a client deadline ends DEADLINE_EXCEEDED while calls with one are left alone.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { SearchService, VectorSearchResponseSchema } from "../../gen/threadsight/v1/search_pb.js";
import { toConnectError } from "../../src/errors/to-connect.js";
import { deadlineInterceptor, withTimeout } from "../../src/interceptors/deadline.js";

// The deadline timer is unref'd like AbortSignal.timeout's, so it cannot keep the test process
// alive while a test waits for it; this timer does.
let hold: NodeJS.Timeout;
before(() => {
  hold = setInterval(() => {}, 1_000);
});
after(() => clearInterval(hold));

describe("withTimeout", () => {
  it("aborts after the timeout with the reason AbortSignal.timeout gives", async () => {
    const signal = withTimeout(new AbortController().signal, 20);
    assert.equal(signal.aborted, false);
    await once(signal, "abort");
    const reference = AbortSignal.timeout(1);
    await once(reference, "abort");
    const reason = signal.reason as DOMException;
    assert.ok(reason instanceof DOMException);
    assert.equal(reason.name, (reference.reason as DOMException).name);
    assert.equal(reason.message, (reference.reason as DOMException).message);
    // The error table maps it to DEADLINE_EXCEEDED, as before.
    assert.equal(toConnectError(reason).code, Code.DeadlineExceeded);
  });

  it("passes the call's own abort on, with its reason, and the timeout then no longer fires", async () => {
    const call = new AbortController();
    const signal = withTimeout(call.signal, 30);
    const reason = new Error("the call ended");
    call.abort(reason);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, reason);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(signal.reason, reason, "the first reason stays");
  });

  it("is aborted at once when the call's signal already is", () => {
    const call = new AbortController();
    const reason = new Error("gone before the interceptor ran");
    call.abort(reason);
    const signal = withTimeout(call.signal, 10_000);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, reason);
  });

  it("keeps the timeout's reason when the call aborts afterwards", async () => {
    const call = new AbortController();
    const signal = withTimeout(call.signal, 10);
    await once(signal, "abort");
    call.abort(new Error("too late"));
    assert.equal((signal.reason as DOMException).name, "TimeoutError");
  });
});

describe("deadline interceptor in a Connect router", () => {
  /** A VectorSearch that waits until its signal fires and records what it saw. */
  function router(timeoutMs: number, seen: { signal?: AbortSignal }) {
    return createRouterTransport(
      (r) => {
        r.service(SearchService, {
          async vectorSearch(req, ctx: HandlerContext) {
            seen.signal = ctx.signal;
            if (req.query === "slow") {
              await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
              throw ctx.signal.reason;
            }
            return create(VectorSearchResponseSchema, { query: req.query });
          },
        });
      },
      {
        router: {
          interceptors: [
            (next) => async (req) => {
              try {
                return await next(req);
              } catch (err) {
                throw toConnectError(err);
              }
            },
            deadlineInterceptor(timeoutMs),
          ],
        },
      },
    );
  }

  it("a call without a client deadline ends DEADLINE_EXCEEDED at the server default", async () => {
    const seen: { signal?: AbortSignal } = {};
    const client = createClient(SearchService, router(50, seen));
    const started = Date.now();
    await assert.rejects(client.vectorSearch({ query: "slow" }), (err: unknown) => {
      assert.ok(err instanceof ConnectError);
      assert.equal(err.code, Code.DeadlineExceeded);
      return true;
    });
    assert.ok(Date.now() - started >= 45, "not before the deadline");
    assert.equal((seen.signal!.reason as DOMException).name, "TimeoutError");
  });

  it("a call that answers in time gets its answer, and its signal ends with the call", async () => {
    const seen: { signal?: AbortSignal } = {};
    const client = createClient(SearchService, router(10_000, seen));
    const res = await client.vectorSearch({ query: "quick" });
    assert.equal(res.query, "quick");
    // Connect aborts a call's signal once it is over; the handler's signal follows, so the
    // server default's timer does not outlive the call.
    await new Promise((r) => setImmediate(r));
    assert.equal(seen.signal!.aborted, true);
    assert.notEqual((seen.signal!.reason as DOMException | undefined)?.name, "TimeoutError");
  });

  it("a client deadline is left to Connect (the server default does not apply)", async () => {
    const seen: { signal?: AbortSignal } = {};
    const client = createClient(SearchService, router(30, seen));
    await assert.rejects(client.vectorSearch({ query: "slow" }, { timeoutMs: 150 }), (err: unknown) => {
      assert.ok(err instanceof ConnectError);
      assert.equal(err.code, Code.DeadlineExceeded);
      return true;
    });
    // Connect's own deadline fired, not the interceptor's 30 ms one.
    assert.notEqual((seen.signal!.reason as DOMException | undefined)?.name, "TimeoutError");
  });
});
