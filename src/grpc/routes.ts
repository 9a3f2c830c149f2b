/**
 * The gRPC ecosystem services every Threadsight server mounts next to its own: server
 * reflection (v1 and v1alpha) and health. One function, so the server wires them in one line.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { file_google_rpc_error_details } from "../../gen/google/rpc/error_details_pb.js";
import { file_google_rpc_status } from "../../gen/google/rpc/status_pb.js";
import { createHealthService, Health } from "./health.js";
import type { HealthMonitor } from "./health-monitor.js";
import { createReflectionServices, ServerReflectionV1, ServerReflectionV1alpha } from "./reflection.js";

/** Files our error responses reference: google.rpc.Status and the detail messages it packs. */
const ERROR_DETAIL_FILES = [file_google_rpc_status, file_google_rpc_error_details];

/**
 * Returns a router callback registering reflection v1, v1alpha and grpc.health.v1.Health.
 * Reflection describes `services` plus these three ecosystem services, and the google.rpc
 * status and error-detail files, so clients decode the details of our errors by name.
 *
 * Reflection is a bidirectional stream, so clients reach it only over HTTP/2 (h2c or TLS).
 *
 * @param services the application services served on the same router
 * @param health the monitor the Health service reports from
 */
export function ecosystemRoutes(
  services: readonly DescService[],
  health: HealthMonitor,
): (router: ConnectRouter) => void {
  const reflection = createReflectionServices([...services, Health], ERROR_DETAIL_FILES);
  const healthService = createHealthService(health);
  return (router) => {
    router.service(ServerReflectionV1, reflection.v1);
    router.service(ServerReflectionV1alpha, reflection.v1alpha);
    router.service(Health, healthService);
  };
}
