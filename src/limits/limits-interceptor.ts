/**
 * The limits interceptor: the one place every protocol passes through (REST via the gateway's
 * router transport, Connect, gRPC, gRPC-Web), so all of them are admitted, counted and given
 * headers identically. It runs after the auth interceptor and reads CALLER from the context.
 *
 * For a metered RPC: admit (rate, then quota), record usage for the key/day/operation, call the
 * handler, and put the limit headers on the response, or on the error's metadata if anything
 * fails (including the handler: a call that fails validation was admitted and counts).
 */
import { create } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import type { Interceptor } from "@connectrpc/connect";
import { QuotaFailure_ViolationSchema, QuotaFailureSchema, RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { AccountsStore } from "../accounts/store.js";
import { utcDay } from "../accounts/usage-args.js";
import { CALLER } from "../auth/context.js";
import { AppError } from "../errors/app-error.js";
import { toConnectError } from "../errors/to-connect.js";
import type { LimitEnforcer } from "./enforcer.js";
import { applyHeaders, limitHeaders, retryAfterHeader } from "./limit-headers.js";
import { LimitExceededError } from "./limit-exceeded.js";
import { operationOf } from "./operations.js";
import type { Operation } from "./operations.js";

/** Retry-After sent with a 503 when the limits store cannot answer, seconds. */
export const STORE_UNAVAILABLE_RETRY_SECONDS = 5;

/** What the interceptor needs. */
export interface LimitsInterceptorDeps {
  enforcer: LimitEnforcer;
  /** Where metered calls are recorded (the accounts store). */
  usage: Pick<AccountsStore, "recordUsage">;
  /** Told when recording usage fails; the call itself still succeeds (the quota counted it). */
  onUsageError?: (err: unknown, keyId: string, operation: Operation) => void;
  /** Epoch ms, for the usage day; injectable for tests. */
  clock?: () => number;
}

/** The ConnectError of a 429, with RetryInfo, QuotaFailure and the limit headers. */
export function limitExceededToConnect(err: LimitExceededError): ConnectError {
  const ce = toConnectError(err);
  const { snapshot } = err;
  const quota = err.limit === "QUOTA_EXCEEDED" && !snapshot.quota.unlimited ? snapshot.quota.limit : snapshot.rate.limit;
  ce.details.push(
    { desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: { seconds: BigInt(err.retryAfterSeconds), nanos: 0 } }) },
    {
      desc: QuotaFailureSchema,
      value: create(QuotaFailureSchema, {
        violations: [
          create(QuotaFailure_ViolationSchema, {
            subject: `plan:${snapshot.plan.id}`,
            description: err.message,
            quotaId: err.limit === "RATE_LIMITED" ? "requests-per-minute" : "calls-per-quota-period",
            quotaMetric: "threadsight.v1/calls",
            quotaValue: BigInt(quota),
          }),
        ],
      }),
    },
  );
  applyHeaders(ce.metadata, limitHeaders(snapshot));
  applyHeaders(ce.metadata, retryAfterHeader(err.retryAfterSeconds));
  return ce;
}

function admissionError(err: unknown): ConnectError {
  if (err instanceof LimitExceededError) return limitExceededToConnect(err);
  const ce = toConnectError(err);
  if (err instanceof AppError && err.kind === "UNAVAILABLE") {
    applyHeaders(ce.metadata, retryAfterHeader(STORE_UNAVAILABLE_RETRY_SECONDS));
  }
  return ce;
}

/** Creates the limits interceptor; place it after the auth interceptor. */
export function createLimitsInterceptor(deps: LimitsInterceptorDeps): Interceptor {
  const clock = deps.clock ?? Date.now;
  return (next) => async (req) => {
    const operation = operationOf(req.service.typeName, req.method.name);
    if (operation === undefined) return next(req);
    const caller = req.contextValues.get(CALLER);
    if (caller === undefined) {
      // Auth runs first and sets CALLER on every threadsight.v1 service; a metered call without
      // one means the interceptors are wired wrongly, and must not run for free.
      throw toConnectError(new AppError("UNAUTHENTICATED", "an API key is required: send Authorization: Bearer <API_KEY>"));
    }
    let headers: Record<string, string>;
    try {
      headers = limitHeaders(await deps.enforcer.admit(caller));
    } catch (err) {
      throw admissionError(err);
    }
    const recording = deps.usage
      .recordUsage(caller.keyId, utcDay(new Date(clock())), operation, 1)
      .catch((err: unknown) => deps.onUsageError?.(err, caller.keyId, operation));
    try {
      const res = await next(req);
      applyHeaders(res.header, headers);
      return res;
    } catch (err) {
      const ce = toConnectError(err);
      applyHeaders(ce.metadata, headers);
      throw ce;
    } finally {
      await recording;
    }
  };
}
