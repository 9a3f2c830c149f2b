/**
 * The service under test, in its own process (as in production, so the benchmark's clients do
 * not share its event loop): startService over the given data directory and env, plus one
 * enterprise key with a per-key rate override high enough that limits never throttle the
 * benchmark. Prints one JSON line {url, address, key, posts} and runs until SIGTERM.
 *
 * Run: node --import tsx test/bench/serve-child.ts '<json {dataDir, env}>'
 */
import { startService } from "../harness/service.js";

const { dataDir, env } = JSON.parse(process.argv[2] ?? "{}") as { dataDir: string; env: Record<string, string> };
const svc = await startService({ dataDir, env: { LOG_LEVEL: "warn", EMBED_WORKERS: "2", ...env } });
const created = await svc.service.keys.createKey({
  accountName: "bench",
  plan: "enterprise",
  name: `bench ${new Date().toISOString()}`,
  overrides: { ratePerMinute: 10_000_000 },
});
const posts = await svc.service.index.count();
process.stdout.write(JSON.stringify({ url: svc.url, address: svc.address, key: created.key, posts }) + "\n");
// Warnings and errors (log level warn) go to stderr, where the benchmark keeps the tail to explain a failure.
let flushed = 0;
setInterval(() => {
  for (; flushed < svc.logs.length; flushed++) process.stderr.write(svc.logs[flushed] + "\n");
}, 500).unref();
const stop = (): void => {
  svc.stop({ keepData: true }).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
