/**
 * Field checks shared by the connectors' settings validators. Each failure is an AppError
 * naming the field and the rule, so `sources add` tells the user exactly what to fix.
 */
import { AppError } from "../errors/app-error.js";

/** The settings object, or an error when it is not one. */
export function settingsObject(raw: unknown): Record<string, unknown> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new AppError("INVALID_ARGUMENT", "settings must be a JSON object", { field: "settings" });
  return raw as Record<string, unknown>;
}

/** Refuses fields the connector does not know, so a typo is not silently ignored. */
export function onlyFields(settings: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(settings)) {
    if (!known.includes(key))
      throw new AppError(
        "UNKNOWN_FIELD",
        `settings.${key} is not a setting of this kind of source (known: ${known.join(", ")})`,
        { field: `settings.${key}` },
      );
  }
}

/** An optional string field; `pattern` when given must match. */
export function optString(
  settings: Record<string, unknown>,
  name: string,
  pattern?: RegExp,
  rule?: string,
): string | undefined {
  const value = settings[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "")
    throw new AppError("WRONG_TYPE", `settings.${name} must be a non-empty string`, { field: `settings.${name}` });
  if (pattern !== undefined && !pattern.test(value))
    throw new AppError(
      "INVALID_ARGUMENT",
      `settings.${name} ${rule ?? `must match ${pattern}`}, got ${JSON.stringify(value)}`,
      { field: `settings.${name}` },
    );
  return value;
}

/** A required string field. */
export function reqString(settings: Record<string, unknown>, name: string, pattern?: RegExp, rule?: string): string {
  const value = optString(settings, name, pattern, rule);
  if (value === undefined)
    throw new AppError("MISSING_FIELD", `settings.${name} is required`, { field: `settings.${name}` });
  return value;
}

/** An optional whole number in [min, max]. */
export function optInt(settings: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = settings[name];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new AppError(
      "OUT_OF_RANGE",
      `settings.${name} must be a whole number between ${min} and ${max}, got ${JSON.stringify(value)}`,
      { field: `settings.${name}` },
    );
  }
  return value;
}

/** An optional http(s) URL, returned without a trailing slash. */
export function optUrl(settings: Record<string, unknown>, name: string): string | undefined {
  const value = optString(settings, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError(
      "INVALID_ARGUMENT",
      `settings.${name} must be an http or https URL, got ${JSON.stringify(value)}`,
      { field: `settings.${name}` },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new AppError(
      "INVALID_ARGUMENT",
      `settings.${name} must be an http or https URL, got ${JSON.stringify(value)}`,
      { field: `settings.${name}` },
    );
  return value.replace(/\/+$/, "");
}

/** Settings that are credentials: never printed (`sources list --json` shows them redacted). */
export const SECRET_SETTINGS: readonly string[] = ["clientSecret", "apiKey", "key"];

/** The settings with every credential replaced by "(redacted)". */
export function redactSettings(settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [k, SECRET_SETTINGS.includes(k) && v !== undefined ? "(redacted)" : v]),
  );
}
