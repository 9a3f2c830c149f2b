/**
 * The limits interceptor: the one place every protocol passes through (REST via the gateway's
 * router transport, Connect, gRPC, gRPC-Web), so all of them are admitted, counted and given
 * headers identically. It runs after the auth interceptor and reads CALLER from the context.
 *
 * For a metered RPC: admit (rate, then quota), call the handler, record usage for the
 * key/day/operation, and put the limit headers on the response, or on the error's metadata if
 * anything fails. What an admitted call that fails costs depends on whose fault it is:
 * - the client's (validation, not found, its own deadline, cancelled): it counts, like a success;
 * - the service's (INTERNAL, UNAVAILABLE): the quota point is given back and no usage row is
 *   written, so a customer does not pay for our outage; the per-minute point stays spent (that
 *   window protects the service, and a retry storm during an outage is what it is for).
 */
import { create } from "@bufbuild/protobuf";
import type { ConnectError, Interceptor } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import {
  QuotaFailure_ViolationSchema,
  QuotaFailureSchema,
  RetryInfoSchema,
} from "../../gen/google/rpc/error_details_pb.js";
import type { AccountsStore } from "../accounts/store.js";
import { utcDay } from "../accounts/usage-args.js";
import { CALLER } from "../auth/context.js";
import { AppError } from "../errors/app-error.js";
import { toConnectError } from "../errors/to-connect.js";
import type { LimitEnforcer } from "./enforcer.js";
import { LimitExceededError } from "./limit-exceeded.js";
import { applyHeaders, limitHeaders, retryAfterHeader } from "./limit-headers.js";
import { meteredStream } from "./metered-stream.js";
import type { Operation } from "./operations.js";
import { operationOf, STREAMED_UNITS } from "./operations.js";
import type { LimitSnapshot } from "./snapshot.js";

/** Retry-After sent with a 503 when the limits store cannot answer, seconds. */
export const STORE_UNAVAILABLE_RETRY_SECONDS = 5;

/** What the interceptor needs. */
export interface LimitsInterceptorDeps {
  enforcer: LimitEnforcer;
  /** Where metered calls are recorded (the accounts store). */
  usage: Pick<AccountsStore, "recordUsage">;
  /** Told when recording usage fails; the call itself still succeeds (the quota counted it). */
  onUsageError?: (err: unknown, keyId: string, operation: Operation) => void;
  /** Told when giving back the quota point of a failed call fails (the point stays spent). */
  onReleaseError?: (err: unknown, keyId: string, operation: Operation) => void;
  /** Epoch ms, for the usage day; injectable for tests. */
  clock?: () => number;
}

/** The ConnectError of a 429, with RetryInfo, QuotaFailure and the limit headers. */
export function limitExceededToConnect(err: LimitExceededError): ConnectError {
  const ce = toConnectError(err);
  const { snapshot } = err;
  const quota =
    err.limit === "QUOTA_EXCEEDED" && !snapshot.quota.unlimited ? snapshot.quota.limit : snapshot.rate.limit;
  ce.details.push(
    {
      desc: RetryInfoSchema,
      value: create(RetryInfoSchema, { retryDelay: { seconds: BigInt(err.retryAfterSeconds), nanos: 0 } }),
    },
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

/** Codes that mean the service failed, not the client: such a call is not charged to the quota. */
const SERVICE_FAULTS: ReadonlySet<Code> = new Set([Code.Internal, Code.Unavailable]);

/** True when a call that ended with `code` is not charged to the caller's quota. */
export function isServiceFault(code: Code): boolean {
  return SERVICE_FAULTS.has(code);
}

/** The snapshot as it stands once the call's quota point has been given back. */
function withQuotaPointBack(snapshot: LimitSnapshot): LimitSnapshot {
  const { quota } = snapshot;
  if (quota.unlimited) return snapshot;
  return {
    ...snapshot,
    quota: { ...quota, used: Math.max(0, quota.used - 1), remaining: Math.min(quota.limit, quota.remaining + 1) },
  };
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
      throw toConnectError(
        new AppError("UNAUTHENTICATED", "an API key is required: send Authorization: Bearer <API_KEY>"),
      );
    }
    let snapshot: LimitSnapshot;
    try {
      snapshot = await deps.enforcer.admit(caller);
    } catch (err) {
      throw admissionError(err);
    }
    const headers = limitHeaders(snapshot);
    // The day the call was admitted on, like its quota point, even if it ends after midnight.
    const day = utcDay(new Date(clock()));
    const record = () =>
      deps.usage
        .recordUsage(caller.keyId, day, operation, 1)
        .catch((err: unknown) => deps.onUsageError?.(err, caller.keyId, operation));
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
      if (res.stream) {
        // The handler runs as the stream is read: charge and record as it goes (metered-stream.ts).
        applyHeaders(res.header, headers);
        return {
          ...res,
          message: meteredStream(res.message, {
            units: STREAMED_UNITS.get(operation),
            admitMore: () => deps.enforcer.admitMore(caller),
            release: () => deps.enforcer.release(caller, snapshot.now),
            record: (calls) =>
              deps.usage
                .recordUsage(caller.keyId, day, operation, calls)
                .catch((err: unknown) => deps.onUsageError?.(err, caller.keyId, operation)),
            onReleaseError: (err) => deps.onReleaseError?.(err, caller.keyId, operation),
            toError: (err) => (err instanceof LimitExceededError ? limitExceededToConnect(err) : toConnectError(err)),
            isServiceFault,
          }),
        };
      }
    } catch (err) {
      const ce = toConnectError(err);
      if (isServiceFault(ce.code)) {
        const released = await deps.enforcer.release(caller, snapshot.now).catch((e: unknown) => {
          deps.onReleaseError?.(e, caller.keyId, operation);
          return false;
        });
        applyHeaders(ce.metadata, released ? limitHeaders(withQuotaPointBack(snapshot)) : headers);
      } else {
        applyHeaders(ce.metadata, headers);
        await record();
      }
      throw ce;
    }
    await record();
    applyHeaders(res.header, headers);
    return res;
  };
}
