/**
 * What every live-source fake shares: a loopback HTTP server that logs each request, injects
 * scripted faults (429 with Retry-After, 5xx, slow answers, truncated JSON), and checks the
 * client's manners, recording a violation for: a request without a descriptive User-Agent, a
 * request sent before a Retry-After it was given had passed, more requests in flight than
 * allowed, or more requests than the budget. Tests assert `violations` is empty.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Requests this soon after a Retry-After answer are taken as already under way when it came. */
const IN_FLIGHT_GRACE_MS = 150;

/** A scripted fault for the next `times` requests whose path matches. */
export interface Fault {
  path: RegExp;
  kind: "429" | "500" | "503" | "slow" | "truncate";
  /** Seconds, sent as Retry-After with 429/503. */
  retryAfter?: number;
  /** For "slow": how long to wait before answering, ms. */
  delayMs?: number;
  times: number;
}

/** One logged request. */
export interface LoggedRequest {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

/** An answer from a fake's route. */
export interface RouteAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** The shared server. */
export interface PoliteServer {
  url: string;
  requests: LoggedRequest[];
  violations: string[];
  inject(fault: Fault): void;
  /** Drops the faults not yet used up. */
  clearFaults(): void;
  /** Requests whose path matches, for counting. */
  count(path: RegExp): number;
  close(): Promise<void>;
}

/** Manners the server checks. */
export interface Manners {
  maxConcurrent: number;
  /** Largest number of requests a test allows in all. */
  maxRequests: number;
}

/** Starts a fake answering with `route` (path with query) on a loopback port. */
export async function startPoliteServer(
  route: (url: URL, req: http.IncomingMessage) => RouteAnswer,
  manners: Manners = { maxConcurrent: 8, maxRequests: 10_000 },
): Promise<PoliteServer> {
  const requests: LoggedRequest[] = [];
  const violations: string[] = [];
  const faults: Fault[] = [];
  let inFlight = 0;
  let blockedUntil = 0;
  let blockedFrom = 0;
  const server = http.createServer((req, res) => {
    const now = Date.now();
    const url = new URL(req.url ?? "/", "http://fake");
    const entry: LoggedRequest = {
      at: now,
      method: req.method ?? "GET",
      url: url.pathname + url.search,
      headers: req.headers,
      status: 0,
    };
    requests.push(entry);
    inFlight += 1;
    const ua = req.headers["user-agent"] ?? "";
    if (!/threadsight/i.test(ua))
      violations.push(`request without a descriptive User-Agent: ${JSON.stringify(ua)} for ${entry.url}`);
    // Requests arriving just after the 429 may have left the client before it could know.
    if (now > blockedFrom + IN_FLIGHT_GRACE_MS && now < blockedUntil - 50)
      violations.push(`request ${entry.url} sent ${blockedUntil - now} ms before the Retry-After given had passed`);
    if (inFlight > manners.maxConcurrent)
      violations.push(`${inFlight} requests in flight, more than ${manners.maxConcurrent}`);
    if (requests.length > manners.maxRequests)
      violations.push(`request ${requests.length} exceeds the budget of ${manners.maxRequests}`);
    const send = (answer: RouteAnswer): void => {
      entry.status = answer.status;
      res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
      res.end(answer.body, () => (inFlight -= 1));
    };
    const fault = faults.find((f) => f.times > 0 && f.path.test(url.pathname));
    if (fault !== undefined) {
      fault.times -= 1;
      if (fault.kind === "429" || fault.kind === "503") {
        const headers: Record<string, string> = {};
        if (fault.retryAfter !== undefined) {
          headers["retry-after"] = String(fault.retryAfter);
          blockedUntil = Math.max(blockedUntil, now + fault.retryAfter * 1000);
          blockedFrom = now;
        }
        send({
          status: fault.kind === "429" ? 429 : 503,
          body: JSON.stringify({ error: fault.kind === "429" ? "Too Many Requests" : "Service Unavailable" }),
          headers,
        });
        return;
      }
      if (fault.kind === "500") {
        send({ status: 500, body: '{"error":"internal"}' });
        return;
      }
      if (fault.kind === "truncate") {
        const full = route(url, req);
        send({ ...full, body: full.body.slice(0, Math.max(1, Math.floor(full.body.length / 2))) });
        return;
      }
      setTimeout(() => send(route(url, req)), fault.delayMs ?? 1000);
      return;
    }
    send(route(url, req));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    inject: (fault) => void faults.push({ ...fault }),
    clearFaults: () => void faults.splice(0),
    count: (path) => requests.filter((r) => path.test(r.url)).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
