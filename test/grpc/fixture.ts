/**
 * A real HTTP/2 cleartext server for the gRPC ecosystem suites: our SearchService (answering
 * Unimplemented, as it does until search is built) plus reflection and health, on an
 * ephemeral loopback port.
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { SearchService } from "../../gen/threadsight/v1/search_pb.js";
import { HealthMonitor } from "../../src/grpc/health-monitor.js";
import { ecosystemRoutes } from "../../src/grpc/routes.js";

/** Message of the stub's Unimplemented error, asserted by the suites. */
export const NOT_BUILT = "not built";

/** A running fixture server. */
export interface EcosystemServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  /** e.g. 127.0.0.1:41234, for grpc-js and grpcurl. */
  readonly address: string;
  readonly health: HealthMonitor;
  /** Every call the server received, as `<protocol> /<service>/<method>`, in arrival order. */
  readonly calls: string[];
  close(): Promise<void>;
}

/**
 * Starts the server. `health` defaults to a monitor with no checks (overall SERVING) that is
 * not polling; suites that need checks pass their own, started monitor.
 */
export async function startEcosystemServer(health = new HealthMonitor()): Promise<EcosystemServer> {
  const routes = (router: ConnectRouter): void => {
    router.service(SearchService, {
      semanticSearch() {
        throw new ConnectError(NOT_BUILT, Code.Unimplemented);
      },
      vectorSearch() {
        throw new ConnectError(NOT_BUILT, Code.Unimplemented);
      },
    });
    ecosystemRoutes([SearchService], health)(router);
  };
  const calls: string[] = [];
  const record: Interceptor = (next) => (req) => {
    calls.push(`${protocolOf(req.header.get("content-type"))} /${req.service.typeName}/${req.method.name}`);
    return next(req);
  };
  const server = http2.createServer(connectNodeAdapter({ routes, interceptors: [record] }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    health,
    calls,
    async close() {
      health.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

function protocolOf(contentType: string | null): string {
  if (contentType?.startsWith("application/grpc-web")) return "grpcweb";
  if (contentType?.startsWith("application/grpc")) return "grpc";
  return "connect";
}
