/**
 * Starts stripe-mock (Stripe's own mock of its API, built by scripts/install-stripe-mock.sh or
 * given as STRIPE_MOCK_BIN) on a free loopback port, and signs webhook events exactly as Stripe
 * does (`Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`).
 * stripe-mock checks every request against Stripe's OpenAPI spec and answers with fixtures; it
 * keeps no state and sends no webhooks, so tests build those themselves.
 */
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { missingBackend } from "./backend-policy.js";

/** The stripe-mock version scripts/install-stripe-mock.sh builds. */
export const STRIPE_MOCK_VERSION = "v0.203.0";

/** A running stripe-mock. */
export interface StripeMock {
  /** http://127.0.0.1:PORT, for STRIPE_API_BASE. */
  url: string;
  stop(): Promise<void>;
}

/** Where the binary is looked for: STRIPE_MOCK_BIN, else the install script's cache path. */
export function stripeMockPath(): string {
  const fromEnv = process.env.STRIPE_MOCK_BIN;
  if (fromEnv) return fromEnv;
  const cache = process.env.THREADSIGHT_CACHE ?? path.join(os.homedir(), ".cache", "threadsight");
  return path.join(cache, `stripe-mock-${STRIPE_MOCK_VERSION}`, "stripe-mock");
}

/** A skip reason when the binary is missing; throws instead when required (CI, REQUIRE_STRIPE_MOCK). */
export function stripeMockSkipReason(): string | undefined {
  const bin = stripeMockPath();
  if (existsSync(bin)) return undefined;
  return missingBackend("stripe_mock", `no binary at ${bin}; run scripts/install-stripe-mock.sh`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = exited();
    if (why !== undefined) throw new Error(`stripe-mock exited before listening: ${why}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`stripe-mock did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts stripe-mock over plain HTTP on a free loopback port. */
export async function startStripeMock(): Promise<StripeMock> {
  const port = await freePort();
  const child = spawn(stripeMockPath(), ["-http-addr", `127.0.0.1:${port}`], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  let exit: string | undefined;
  child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString("utf8")).slice(-4000)));
  child.once("exit", (code, signal) => (exit = `code ${code} signal ${signal}: ${stderr}`));
  try {
    await waitForPort(port, 20_000, () => exit);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exit !== undefined) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The Stripe-Signature header Stripe sends with `payload`, signed at `timestamp` (unix seconds). */
export function stripeSignature(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

/** A webhook event as Stripe sends it (the fields our handler and the library read). */
export function stripeEvent(type: string, object: Record<string, unknown>): string {
  return JSON.stringify({
    id: `evt_test_${Math.random().toString(36).slice(2, 12)}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });
}
