/**
 * The plan catalog: which plans exist, whether they may call the API, their quota and their
 * per-minute rate. Loaded once at start-up from a JSON file (PLANS_FILE) and validated here, so a
 * typo in a catalog stops the process with a message naming the plan and the field instead of
 * silently granting or denying calls later.
 */
import { readFileSync } from "node:fs";
import type { PlanId } from "../accounts/caller.js";
import { PLAN_IDS } from "../accounts/caller.js";
import type { QuotaPeriod } from "./quota-period.js";
import { parseQuotaPeriod } from "./quota-period.js";

/** One plan as the limits code uses it. */
export interface Plan {
  id: PlanId;
  /** Display name ("Pro"). */
  name: string;
  /** False: every metered call is refused with 403 PLAN_NO_API_ACCESS. */
  apiAccess: boolean;
  /** Calls per quota period; null = unlimited. */
  quota: number | null;
  period: QuotaPeriod;
  /**
   * Requests per minute. null = "custom": agreed per key (LimitOverrides.ratePerMinute), and
   * customRateDefault applies to a key without an override.
   */
  ratePerMinute: number | null;
  /** Rate for a custom-rate plan's key that carries no override; null when ratePerMinute is set. */
  customRateDefault: number | null;
  /** Monitors that may be active (not paused) at once per account; null = unlimited. */
  maxActiveMonitors: number | null;
  /** Monitor deliveries (webhook, Slack, e-mail sends) per account per UTC day; null = unlimited. */
  monitorDeliveriesPerDay: number | null;
}

/** A validated catalog: plans in upgrade order (cheapest first). */
export interface PlanCatalog {
  /** Catalog name from the file ("variant-b"). */
  name: string;
  description: string;
  plans: readonly Plan[];
}

/** Thrown for an unreadable or invalid catalog; the message names the file, plan and field. */
export class PlanCatalogError extends Error {
  override readonly name = "PlanCatalogError";
}

type Json = Record<string, unknown>;

const PLAN_FIELDS = new Set([
  "id",
  "name",
  "api_access",
  "quota",
  "quota_period",
  "rate_per_minute",
  "custom_rate_default",
  "max_active_monitors",
  "monitor_deliveries_per_day",
]);

/** A monitor limit: absent = 0 (no monitors), null = unlimited, else a whole number >= 0. */
function monitorLimit(v: unknown, at: string, field: string): number | null {
  if (v === undefined) return 0;
  if (v === null) return null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new PlanCatalogError(
    `${at}: ${field} must be a whole number >= 0 or null (unlimited), got ${JSON.stringify(v)}`,
  );
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function positiveInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

function parsePlan(raw: unknown, where: string): Plan {
  if (!isObject(raw)) throw new PlanCatalogError(`${where} must be an object`);
  for (const key of Object.keys(raw)) {
    if (!PLAN_FIELDS.has(key)) throw new PlanCatalogError(`${where}: unknown field "${key}"`);
  }
  const {
    id,
    name,
    api_access,
    quota,
    quota_period,
    rate_per_minute,
    custom_rate_default,
    max_active_monitors,
    monitor_deliveries_per_day,
  } = raw;
  if (typeof id !== "string" || !(PLAN_IDS as readonly string[]).includes(id)) {
    throw new PlanCatalogError(`${where}.id must be one of ${PLAN_IDS.join(", ")}, got ${JSON.stringify(id)}`);
  }
  const at = `plan "${id}"`;
  if (typeof name !== "string" || name.trim() === "")
    throw new PlanCatalogError(`${at}: name must be a non-empty string`);
  if (typeof api_access !== "boolean") throw new PlanCatalogError(`${at}: api_access must be true or false`);
  if (quota !== null && !positiveInt(quota)) {
    throw new PlanCatalogError(
      `${at}: quota must be a whole number >= 1 or null (unlimited), got ${JSON.stringify(quota)}`,
    );
  }
  if (typeof quota_period !== "string") throw new PlanCatalogError(`${at}: quota_period must be a string`);
  let period: QuotaPeriod;
  try {
    period = parseQuotaPeriod(quota_period);
  } catch (err) {
    throw new PlanCatalogError(`${at}: ${(err as Error).message}`);
  }
  if (rate_per_minute !== null && !positiveInt(rate_per_minute)) {
    throw new PlanCatalogError(
      `${at}: rate_per_minute must be a whole number >= 1 or null (custom), got ${JSON.stringify(rate_per_minute)}`,
    );
  }
  let customRateDefault: number | null = null;
  if (rate_per_minute === null && api_access) {
    if (!positiveInt(custom_rate_default)) {
      throw new PlanCatalogError(
        `${at}: rate_per_minute is null (custom), so custom_rate_default must be a whole number >= 1 (the rate of a key without an override)`,
      );
    }
    customRateDefault = custom_rate_default;
  } else if (custom_rate_default !== undefined) {
    throw new PlanCatalogError(
      `${at}: custom_rate_default is only allowed when rate_per_minute is null and api_access is true`,
    );
  }
  return {
    id: id as PlanId,
    name,
    apiAccess: api_access,
    quota,
    period,
    ratePerMinute: rate_per_minute,
    customRateDefault,
    maxActiveMonitors: monitorLimit(max_active_monitors, at, "max_active_monitors"),
    monitorDeliveriesPerDay: monitorLimit(monitor_deliveries_per_day, at, "monitor_deliveries_per_day"),
  };
}

/** Validates a parsed catalog document; `source` names it in error messages. */
export function parsePlanCatalog(doc: unknown, source = "plan catalog"): PlanCatalog {
  try {
    if (!isObject(doc)) throw new PlanCatalogError("the document must be a JSON object");
    const { catalog, description, plans } = doc;
    if (typeof catalog !== "string" || catalog === "")
      throw new PlanCatalogError('"catalog" must be a non-empty string');
    if (description !== undefined && typeof description !== "string")
      throw new PlanCatalogError('"description" must be a string');
    if (!Array.isArray(plans) || plans.length === 0) throw new PlanCatalogError('"plans" must be a non-empty array');
    const parsed = plans.map((p, i) => parsePlan(p, `plans[${i}]`));
    const seen = new Set<string>();
    for (const p of parsed) {
      if (seen.has(p.id)) throw new PlanCatalogError(`plan "${p.id}" appears twice`);
      seen.add(p.id);
    }
    return Object.freeze({ name: catalog, description: description ?? "", plans: Object.freeze(parsed) });
  } catch (err) {
    if (err instanceof PlanCatalogError) throw new PlanCatalogError(`${source}: ${err.message}`);
    throw err;
  }
}

/** Reads and validates a catalog file. Throws PlanCatalogError naming the file. */
export function loadPlanCatalog(file: string): PlanCatalog {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new PlanCatalogError(`cannot read plan catalog ${file} (PLANS_FILE): ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PlanCatalogError(`plan catalog ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parsePlanCatalog(doc, `plan catalog ${file}`);
}

/** The plan with this id, or undefined when the catalog does not offer it. */
export function findPlan(catalog: PlanCatalog, id: string): Plan | undefined {
  return catalog.plans.find((p) => p.id === id);
}
