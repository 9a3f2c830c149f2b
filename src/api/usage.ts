/**
 * UsageService handlers: where the calling key stands in its quota period. Authenticated (the
 * auth interceptor sets CALLER) but free: the limits interceptor does not meter this service.
 */
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { UsageService } from "../../gen/threadsight/v1/usage_pb.js";
import { GetUsageResponseSchema, OperationUsageSchema } from "../../gen/threadsight/v1/usage_pb.js";
import { CALLER } from "../auth/context.js";
import { AppError } from "../errors/app-error.js";
import type { UsageReportDeps } from "../limits/usage-report.js";
import { usageReport } from "../limits/usage-report.js";
import { timestamp } from "./timestamps.js";

const INT32_MAX = 2_147_483_647;

function int32(n: number): number {
  return Math.min(INT32_MAX, Math.max(0, Math.trunc(n)));
}

/** Creates the UsageService implementation. */
export function usageService(deps: UsageReportDeps): ServiceImpl<typeof UsageService> {
  return {
    async getUsage(_req, ctx) {
      const caller = ctx.values.get(CALLER);
      if (caller === undefined) {
        throw new AppError("UNAUTHENTICATED", "an API key is required: send Authorization: Bearer <API_KEY>");
      }
      const r = await usageReport(deps, caller);
      return create(GetUsageResponseSchema, {
        plan: r.plan,
        periodStart: timestamp(r.periodStart.getTime()),
        periodEnd: timestamp(r.periodEnd.getTime()),
        used: int32(r.used),
        limit: int32(r.limit ?? 0),
        remaining: int32(r.remaining ?? 0),
        unlimited: r.limit === null,
        rateLimitPerMinute: int32(r.ratePerMinute),
        operations: r.operations.map((o) =>
          create(OperationUsageSchema, { operation: o.operation, count: int32(o.count) }),
        ),
      });
    },
  };
}
