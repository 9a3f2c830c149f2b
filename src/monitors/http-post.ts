/**
 * One webhook POST: no redirects followed (a 3xx is a failure: the target must be the URL the
 * owner gave), a bounded wait, the address guard on the resolved address.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { guardedLookup, isPrivateAddress } from "./address-guard.js";

/** Longest wait for a receiver's answer, ms. */
export const POST_TIMEOUT_MS = 10_000;

/** What came back. */
export interface PostOutcome {
  ok: boolean;
  status: number;
  latencyMs: number;
  error: string;
}

/** POSTs `body` to `url` with `headers`. Never throws. */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs?: number },
): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ ok: false, status: 0, latencyMs: 0, error: `not a URL: ${url}` });
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, "");
    // An IP literal is connected to without a lookup, so it is checked here.
    if (net.isIP(host) !== 0 && !opts.allowPrivate && isPrivateAddress(host)) {
      resolve({
        ok: false,
        status: 0,
        latencyMs: 0,
        error: `${host} is a private or loopback address; webhooks may not reach it (operators: MONITORS_ALLOW_PRIVATE_WEBHOOKS)`,
      });
      return;
    }
    const client = target.protocol === "https:" ? https : http;
    const req = client.request(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "Threadsight-Webhook/1",
          ...headers,
        },
        lookup: guardedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs ?? POST_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ ok: true, status, latencyMs: elapsed(), error: "" });
          else if (status >= 300 && status < 400)
            resolve({
              ok: false,
              status,
              latencyMs: elapsed(),
              error: `answered a redirect (HTTP ${status}) to ${res.headers.location ?? "?"}; redirects are not followed, update the URL`,
            });
          else resolve({ ok: false, status, latencyMs: elapsed(), error: `answered HTTP ${status}` });
        });
        res.on("error", (err) =>
          resolve({ ok: false, status: res.statusCode ?? 0, latencyMs: elapsed(), error: err.message }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? POST_TIMEOUT_MS} ms`)));
    req.on("error", (err) => resolve({ ok: false, status: 0, latencyMs: elapsed(), error: err.message }));
    req.end(body);
  });
}
