/**
 * grpc.health.v1.Health for Connect-ES, reading a {@link HealthMonitor}: Check and List answer
 * from its current statuses, Watch streams every change until the client goes away.
 */
import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import type { HealthCheckRequest, HealthCheckResponse } from "../../gen/grpc/health/v1/health_pb.js";
import {
  Health,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
  HealthCheckResponse_ServingStatus as Wire,
} from "../../gen/grpc/health/v1/health_pb.js";
import type { HealthEvent, ServingStatus } from "./health-monitor.js";
import { HealthMonitor, OVERALL } from "./health-monitor.js";

export type { HealthEvent, ServingStatus };
export { Health, HealthMonitor, OVERALL };

/** The protocol caps List at this many services (RESOURCE_EXHAUSTED above). */
const LIST_LIMIT = 100;

/** Connect implementation of grpc.health.v1.Health over `monitor`. */
export function createHealthService(monitor: HealthMonitor): ServiceImpl<typeof Health> {
  return {
    check(request: HealthCheckRequest): HealthCheckResponse {
      const status = monitor.get(request.service);
      if (status === undefined) {
        throw new ConnectError(
          `no health status for service "${request.service}"; ask for "" (the whole server) or a registered service`,
          Code.NotFound,
        );
      }
      return response(toWire(status));
    },

    list() {
      const statuses = monitor.snapshot();
      if (statuses.size > LIST_LIMIT) {
        throw new ConnectError(
          `${statuses.size} services have a health status, more than the ${LIST_LIMIT} List may return; use Check per service`,
          Code.ResourceExhausted,
        );
      }
      return create(HealthListResponseSchema, {
        statuses: Object.fromEntries([...statuses].map(([name, status]) => [name, response(toWire(status))])),
      });
    },

    watch(request: HealthCheckRequest, ctx: HandlerContext) {
      return watchStatus(monitor, request.service, ctx.signal);
    },
  };
}

/**
 * Yields the current status of `service` (SERVICE_UNKNOWN when it is not registered, without
 * ending the stream) and then each change, until `signal` aborts or the monitor stops.
 */
async function* watchStatus(
  monitor: HealthMonitor,
  service: string,
  signal: AbortSignal,
): AsyncGenerator<HealthCheckResponse> {
  const pending: Wire[] = [];
  let monitorStopped = monitor.stopped;
  let wake: (() => void) | undefined;
  const onEvent = (event: HealthEvent): void => {
    if (event.type === "stopped") monitorStopped = true;
    else if (event.service === service) pending.push(toWire(event.status));
    wake?.();
  };
  const onAbort = (): void => wake?.();
  // Subscribe before reading the current status, so no change can fall in between.
  const unsubscribe = monitor.subscribe(onEvent);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const current = monitor.get(service);
    let last = current === undefined ? Wire.SERVICE_UNKNOWN : toWire(current);
    yield response(last);
    while (!signal.aborted) {
      const next = pending.shift();
      if (next !== undefined) {
        if (next !== last) {
          last = next;
          yield response(next);
        }
      } else if (monitorStopped) {
        // Changes made while stopping (shutdown's NOT_SERVING) were sent above; now end.
        return;
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}

function toWire(status: ServingStatus): Wire {
  return status === "SERVING" ? Wire.SERVING : Wire.NOT_SERVING;
}

function response(status: Wire): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}
