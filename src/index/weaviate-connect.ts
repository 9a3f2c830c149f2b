/**
 * Opens a weaviate-client v3 connection from the HTTP URL, optional gRPC endpoint and API key
 * in Config. Shared by every Weaviate-backed store so they all read the settings one way.
 */
import weaviate, { ApiKey } from "weaviate-client";
import type { WeaviateClient } from "weaviate-client";

/** Where and how to reach Weaviate. */
export interface WeaviateEndpoint {
  /** HTTP endpoint, e.g. http://127.0.0.1:8080 (a path prefix is kept for proxies). */
  httpUrl: string;
  /** gRPC endpoint as host:port (a scheme is allowed); defaults to the HTTP host on 50051. */
  grpcUrl?: string;
  apiKey?: string;
}

/** Default gRPC port of a Weaviate server. */
export const WEAVIATE_GRPC_PORT = 50051;

/** Connects (the client checks both endpoints before resolving). */
export async function connectWeaviate(endpoint: WeaviateEndpoint): Promise<WeaviateClient> {
  const http = new URL(endpoint.httpUrl);
  const httpSecure = http.protocol === "https:";
  const grpc = parseHostPort(endpoint.grpcUrl, http.hostname, WEAVIATE_GRPC_PORT);
  return weaviate.connectToCustom({
    httpHost: http.hostname,
    httpPort: Number(http.port || (httpSecure ? 443 : 80)),
    httpSecure,
    ...(http.pathname !== "/" ? { httpPath: http.pathname.replace(/\/$/, "") } : {}),
    grpcHost: grpc.host,
    grpcPort: grpc.port,
    grpcSecure: grpc.secure ?? httpSecure,
    ...(endpoint.apiKey ? { authCredentials: new ApiKey(endpoint.apiKey) } : {}),
  });
}

/** host:port, a bare host, or a URL, for the gRPC endpoint. */
export function parseHostPort(value: string | undefined, defaultHost: string, defaultPort: number): { host: string; port: number; secure?: boolean } {
  if (!value) return { host: defaultHost, port: defaultPort };
  if (/^[a-z]+:\/\//i.test(value)) {
    const u = new URL(value);
    const secure = u.protocol === "https:" || u.protocol === "grpcs:";
    return { host: u.hostname, port: Number(u.port || (secure ? 443 : defaultPort)), secure };
  }
  const at = value.lastIndexOf(":");
  if (at < 0) return { host: value, port: defaultPort };
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(value.slice(at + 1)) };
}
