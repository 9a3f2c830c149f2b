/**
 * Which wire protocol a call arrived on, for metrics and logs. The REST gateway calls RPCs
 * through an in-memory transport and marks them with an internal header the HTTP layer strips
 * from client requests, so the mark cannot be forged.
 */

/** Internal header set by the REST gateway on its in-memory calls. */
export const PROTOCOL_HEADER = "x-threadsight-protocol";

/** rest | grpc | grpc_web | connect */
export function protocolOf(header: Headers): string {
  const marked = header.get(PROTOCOL_HEADER);
  if (marked === "rest") return "rest";
  const ct = header.get("content-type") ?? "";
  if (ct.startsWith("application/grpc-web")) return "grpc_web";
  if (ct.startsWith("application/grpc")) return "grpc";
  return "connect";
}
