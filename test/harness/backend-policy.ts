/**
 * One rule for every real backend a test needs (PostgreSQL, Redis, Weaviate, Chromium, data):
 * when it cannot be found, the suite is skipped with a reason on a developer machine, and fails
 * when REQUIRE_<NAME>=1 or CI is set, because CI must never pass by skipping.
 */

/** True when the named backend must be present (REQUIRE_<NAME>=1, or CI set). */
export function isRequired(name: string): boolean {
  const flag = process.env[`REQUIRE_${name.toUpperCase()}`];
  if (flag === "1" || flag === "true") return true;
  if (flag === "0" || flag === "false") return false;
  return Boolean(process.env.CI);
}

/**
 * Decides what a suite does about a missing backend: returns a skip reason (string) for
 * node:test's `skip` option, or throws when the backend is required.
 */
export function missingBackend(name: string, detail: string): string {
  const message = `${name} not available: ${detail}`;
  if (isRequired(name)) throw new Error(`${message} (required: REQUIRE_${name.toUpperCase()}=1 or CI is set)`);
  return message;
}
