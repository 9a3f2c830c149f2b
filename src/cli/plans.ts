/**
 * `threadsight plans list [--json]`: the plan catalog in force (PLANS_FILE, Variant B by
 * default), validated exactly as the server validates it at start-up. With --json, stdout is
 * one JSON object: {catalog, file, plans: [{id, name, api_access, quota, quota_period,
 * rate_per_minute, custom_rate_default}]} in the catalog file's own spelling.
 * Exit codes: 0 done, 1 failed (unreadable or invalid catalog), 2 usage error.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import type { Plan, PlanCatalog } from "../limits/plan-catalog.js";
import { loadPlanCatalog } from "../limits/plan-catalog.js";
import { describeQuotaPeriod, formatQuotaPeriod } from "../limits/quota-period.js";

const HELP = `usage:
  threadsight plans list [--json]

Prints the plans of the catalog in PLANS_FILE (default config/plans/variant-b.json).
  --json   print one JSON object instead of a table`;

function planJson(p: Plan): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    api_access: p.apiAccess,
    quota: p.quota,
    quota_period: formatQuotaPeriod(p.period),
    rate_per_minute: p.ratePerMinute,
    custom_rate_default: p.customRateDefault,
  };
}

function rateText(p: Plan): string {
  if (!p.apiAccess) return "-";
  if (p.ratePerMinute !== null) return `${p.ratePerMinute}/min`;
  return `custom (default ${p.customRateDefault}/min)`;
}

/** The catalog as an aligned text table. */
export function plansTable(catalog: PlanCatalog, file: string): string {
  const rows = catalog.plans.map((p) => [
    p.id,
    p.name,
    p.apiAccess ? "yes" : "no",
    p.quota === null ? "unlimited" : `${p.quota} ${describeQuotaPeriod(p.period)}`,
    rateText(p),
  ]);
  const header = ["ID", "NAME", "API", "QUOTA", "RATE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [`catalog ${catalog.name} (${file})`, line(header), ...rows.map(line)].join("\n");
}

/** Entry point: `threadsight plans ...`. */
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
    process.stderr.write(`plans: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  const [sub, ...extra] = parsed.positionals;
  if (sub !== "list" || extra.length > 0) {
    process.stderr.write(
      `plans: ${sub === undefined ? "a subcommand is required" : `unknown subcommand "${[sub, ...extra].join(" ")}"`}\n\n${HELP}\n`,
    );
    return 2;
  }
  try {
    const file = loadConfig().plansFile;
    const catalog = loadPlanCatalog(file);
    if (parsed.values.json === true) {
      process.stdout.write(JSON.stringify({ catalog: catalog.name, file, plans: catalog.plans.map(planJson) }) + "\n");
    } else {
      process.stdout.write(plansTable(catalog, file) + "\n");
    }
    return 0;
  } catch (err) {
    process.stderr.write(`plans: ${(err as Error).message}\n`);
    return 1;
  }
}
