/**
 * Reads the google.api.http annotations from the generated service descriptors. The gateway
 * registers one REST route per annotated RPC from this list, so adding an RPC with an annotation
 * adds its REST route with no route code written by hand.
 */

import type { DescMethod, DescMethodServerStreaming, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { getOption, hasOption } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";

/** One REST route derived from an annotation. */
export interface RestRoute {
  /** Upper-case HTTP method. */
  httpMethod: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Canonical path, e.g. /api/v1/search/semantic. */
  path: string;
  /** "*" when the whole request message is the body, "" when there is no body. */
  body: string;
  method: DescMethodUnary;
}

/** One streaming REST route: a server-streaming RPC with a POST annotation and body "*". */
export interface StreamRoute {
  path: string;
  method: DescMethodServerStreaming;
}

/** Collects the annotated unary methods of the given services. Path templates are not supported. */
export function restRoutes(services: readonly DescService[]): RestRoute[] {
  return annotated(services, "unary").map((r) => ({ ...r, method: r.method as DescMethodUnary }));
}

/**
 * Collects the annotated server-streaming methods: the gateway writes each as a streaming
 * response (gateway/export-route.ts), never through the unary transcoder.
 */
export function streamRoutes(services: readonly DescService[]): StreamRoute[] {
  return annotated(services, "server_streaming").map((r) => {
    if (r.httpMethod !== "POST" || r.body !== "*") {
      throw new Error(`${r.method.parent.typeName}.${r.method.name}: a streaming route must be a POST with body "*"`);
    }
    return { path: r.path, method: r.method as DescMethodServerStreaming };
  });
}

/** An annotated method of either kind, before it is narrowed. */
type Annotated = Omit<RestRoute, "method"> & { method: DescMethod };

function annotated(services: readonly DescService[], kind: "unary" | "server_streaming"): Annotated[] {
  const routes: Annotated[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (method.methodKind !== kind || !hasOption(method, http)) continue;
      const rule = getOption(method, http);
      const pattern = rule.pattern;
      if (pattern.case === undefined || pattern.case === "custom") continue;
      if (pattern.value.includes("{")) {
        throw new Error(
          `${service.typeName}.${method.name}: path variables are not supported by the gateway (${pattern.value})`,
        );
      }
      routes.push({
        httpMethod: pattern.case.toUpperCase() as RestRoute["httpMethod"],
        path: pattern.value,
        body: rule.body,
        method,
      });
    }
  }
  return routes;
}

/**
 * The spec's `{base_url}` ends in /v1 while its paths start with /api/v1; we document
 * base_url = https://<host>/api/v1 and also answer /v1/... so both readings work.
 */
export function aliasPath(path: string): string | undefined {
  return path.startsWith("/api/v1/") ? path.slice("/api".length) : undefined;
}
