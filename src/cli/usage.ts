/**
 * `threadsight usage KEY_ID [--json]`: where a key stands in its current quota period, read
 * from the same counters and usage rows the server uses (the same report as GET /api/v1/usage).
 * With --json, stdout is one JSON object shaped like the REST usage data object.
 * Exit codes: 0 done, 1 failed (unknown key, store unreachable), 2 usage error.
 */
import { parseArgs } from "node:util";
import { openAccountsStore } from "../accounts/open-store.js";
import { loadConfig } from "../config.js";
import { openLimits } from "../limits/open-limits.js";
import type { UsageReport } from "../limits/usage-report.js";
import { usageReport } from "../limits/usage-report.js";

const HELP = `usage:
  threadsight usage KEY_ID [--json]

Shows the key's plan, current quota period, calls used and left, and calls per operation.
  --json   print one JSON object instead of text`;

/** The report in the REST usage shape (proto field names). */
export function usageJson(r: UsageReport): Record<string, unknown> {
  return {
    plan: r.plan,
    period_start: r.periodStart.toISOString(),
    period_end: r.periodEnd.toISOString(),
    used: r.used,
    limit: r.limit ?? 0,
    remaining: r.remaining ?? 0,
    unlimited: r.limit === null,
    rate_limit_per_minute: r.ratePerMinute,
    operations: r.operations,
  };
}

/** The report as text. */
export function usageText(keyId: string, r: UsageReport): string {
  const lines = [
    `key        ${keyId}`,
    `plan       ${r.plan}`,
    `period     ${r.periodStart.toISOString()} .. ${r.periodEnd.toISOString()} (resets at the end)`,
    r.limit === null ? `used       ${r.used} (unlimited)` : `used       ${r.used} of ${r.limit}, ${r.remaining} left`,
    `rate       ${r.ratePerMinute} requests per minute`,
    "operations",
    ...r.operations.map((o) => `  ${o.operation.padEnd(16)} ${o.count}`),
  ];
  return lines.join("\n");
}

/** Entry point: `threadsight usage ...`. */
export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`usage: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  const [keyId, ...extra] = parsed.positionals;
  if (keyId === undefined || extra.length > 0) {
    process.stderr.write(
      `usage: ${keyId === undefined ? "KEY_ID is required" : `unexpected argument "${extra[0]}"`}\n\n${HELP}\n`,
    );
    return 2;
  }
  let closeAll = async (): Promise<void> => {};
  try {
    const config = loadConfig();
    const store = await openAccountsStore(config);
    closeAll = () => store.close();
    const key = await store.getKey(keyId);
    if (key === undefined) {
      process.stderr.write(`usage: no key with id "${keyId}" (see \`threadsight keys list\`)\n`);
      return 1;
    }
    const limits = await openLimits(config);
    closeAll = async () => {
      await limits.close();
      await store.close();
    };
    const report = await usageReport(
      { enforcer: limits.enforcer, store },
      { keyId: key.id, accountId: key.accountId, plan: key.plan, overrides: key.overrides },
    );
    process.stdout.write(
      (parsed.values.json === true ? JSON.stringify(usageJson(report)) : usageText(key.id, report)) + "\n",
    );
    return 0;
  } catch (err) {
    process.stderr.write(`usage: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await closeAll();
  }
}
