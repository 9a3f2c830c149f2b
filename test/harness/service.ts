/**
 * Starts the whole service the way `threadsight serve` does (createService + listen on an
 * ephemeral loopback port) over a fresh temporary data directory, with real stores and the
 * real embedder. Suites talk to it over the network like any client.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { LimitOverrides } from "../../src/accounts/caller.js";
import type { Config } from "../../src/config.js";
import { loadConfig } from "../../src/config.js";
import type { Service } from "../../src/main.js";
import { createService } from "../../src/main.js";
import { createLogger } from "../../src/observability/logger.js";

/** A running service and what tests need to reach it. */
export interface RunningService {
  service: Service;
  config: Config;
  /** http://127.0.0.1:PORT */
  url: string;
  /** 127.0.0.1:PORT, for gRPC clients. */
  address: string;
  dataDir: string;
  /** Every log line written so far (JSON), for tests that inspect logs. */
  logs: string[];
  /** Creates a key on `plan` and returns its secret. */
  createKey(plan: string, name?: string, overrides?: LimitOverrides): Promise<string>;
  /** Stops the server; removes the data directory unless `keepData`. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** Starts the service. `env` overrides configuration; `dataDir` reuses a directory. */
export async function startService(
  opts: { env?: Record<string, string>; dataDir?: string } = {},
): Promise<RunningService> {
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), "threadsight-svc-")));
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: "127.0.0.1",
    PORT: "0",
    THREADSIGHT_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    EMBED_WORKERS: "1",
    ...opts.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const service = await createService(config, createLogger(config.logLevel, sink));
  await service.app.listen({ port: 0, host: "127.0.0.1" });
  const port = (service.app.server.address() as { port: number }).port;
  let counter = 0;
  return {
    service,
    config,
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    dataDir,
    logs,
    async createKey(plan, name, overrides) {
      const created = await service.keys.createKey({
        accountName: `test-account-${++counter}`,
        plan,
        name: name ?? `test key ${counter}`,
        ...(overrides ? { overrides } : {}),
      });
      return created.key;
    },
    async stop(stopOpts = {}) {
      await service.close();
      if (stopOpts.keepData !== true && opts.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
