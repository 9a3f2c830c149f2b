/**
 * Who may read /metrics. Process and per-method figures help an attacker map the service, so
 * they are not public by default: either a separate listener on an operator-chosen address
 * (METRICS_ADDRESS, e.g. loopback or an internal interface), or the public port behind a bearer
 * token (METRICS_TOKEN), or both; with neither, /metrics is not served.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { Registry } from "prom-client";

/** Where and how /metrics is served. */
export interface MetricsAccess {
  /** host:port of a separate metrics listener; undefined for none. */
  address: { host: string; port: number } | undefined;
  /** Bearer token required to read /metrics wherever it is served; undefined for none. */
  token: string | undefined;
}

/** True when /metrics belongs on the public port: a token protects it and no separate listener was asked for. */
export function metricsOnPublicPort(access: MetricsAccess): boolean {
  return access.address === undefined && access.token !== undefined;
}

/** Constant-time check of an Authorization header against the token (hashing first evens the lengths). */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (match === null) return false;
  const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

/** A started metrics listener. */
export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves GET /metrics from `registry` on its own address; everything else is 404. */
export async function startMetricsListener(
  registry: Registry,
  access: MetricsAccess & { address: { host: string; port: number } },
): Promise<MetricsListener> {
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 10_000 }, (req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    if (!metricsAuthorized(req.headers.authorization, access.token)) {
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="threadsight-metrics"' })
        .end("metrics need Authorization: Bearer <METRICS_TOKEN>\n");
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
      () => res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(access.address.port, access.address.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
