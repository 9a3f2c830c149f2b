/**
 * `threadsight keys`: create, list, revoke and rotate API keys in the configured accounts store
 * (SQLite in THREADSIGHT_DATA_DIR, or PostgreSQL at DATABASE_URL). Command names, flags and the
 * --json shapes are a contract other tools drive: with --json, stdout carries exactly one JSON
 * value and nothing else. Exit codes: 0 done, 1 failed, 2 usage error.
 */

import { AccountsError } from "../accounts/accounts-error.js";
import { PLAN_IDS } from "../accounts/caller.js";
import type { KeyService } from "../accounts/key-service.js";
import { createKeyService } from "../accounts/key-service.js";
import { keyStatus } from "../accounts/key-status.js";
import { isPlanId } from "../accounts/plan-id.js";
import type { ApiKeyInfo } from "../accounts/store.js";
import type { Config } from "../config.js";
import { findPlan, loadPlanCatalog } from "../limits/plan-catalog.js";
import type { Parsed, ParseOptions, StoreExecute } from "./store-command.js";
import { out, parseSubcommand, runStoreCommand, UsageError } from "./store-command.js";
import { table } from "./text-table.js";

/** Account used by `keys create` when --account is not given. */
export const DEFAULT_ACCOUNT_NAME = "default";

const HELP = `usage:
  threadsight keys create --name NAME [--plan PLAN] [--account ACCOUNT] [--json]
  threadsight keys list [--account ACCOUNT_ID] [--json]
  threadsight keys revoke KEY_ID [--json]
  threadsight keys rotate KEY_ID [--json]

  --plan     one of ${PLAN_IDS.join(", ")}: the plan of a new account (default free); for an
             existing account it must be the account's plan (keys follow their account's plan;
             change it for every key with \`threadsight accounts set-plan\`)
  --name     a label for the key (what it is used for)
  --account  an account id (acct_...) or name (default "${DEFAULT_ACCOUNT_NAME}"). A name no account
             has yet makes a new operator account; a name is refused when several accounts
             have it or a portal sign-up made it (the message lists their ids). A portal-made
             account gets operator keys only by id and once its email is verified.
  --json     print one JSON object (an array for list) instead of text

The key is printed once, at create and rotate; only its hash is stored. A rotated key keeps
working for KEY_ROTATION_GRACE_SECONDS (default 86400). Store: SQLite in THREADSIGHT_DATA_DIR,
or PostgreSQL when DATABASE_URL is set.`;

/** A parsed subcommand, ready to run against the key service. */
type Execute = (service: KeyService, config: Config) => Promise<number>;

function parse(sub: string, args: string[], options: ParseOptions, positionals: number): Parsed {
  return parseSubcommand(`keys ${sub}`, args, options, positionals);
}

function requiredString(sub: string, values: Parsed["values"], flag: string): string {
  const v = values[flag];
  if (typeof v !== "string") throw new UsageError(`keys ${sub}: --${flag} is required`);
  if (v.trim() === "") throw new UsageError(`keys ${sub}: --${flag} must not be blank`);
  return v;
}

function keyId(sub: string, positionals: string[]): string {
  const id = positionals[0];
  if (id === undefined || id === "")
    throw new UsageError(`keys ${sub}: give the KEY_ID (see \`threadsight keys list\`)`);
  return id;
}

function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString();
}

function keyJson(k: ApiKeyInfo, now: Date): Record<string, unknown> {
  return {
    id: k.id,
    name: k.name,
    plan: k.plan,
    status: keyStatus(k, now),
    account_id: k.accountId,
    display_prefix: k.displayPrefix,
    created_at: iso(k.createdAt),
    revoked_at: iso(k.revokedAt),
    expires_at: iso(k.expiresAt),
    rotated_to: k.rotatedTo,
    overrides: k.overrides,
  };
}

function create(args: string[]): Execute {
  const flags: ParseOptions = {
    plan: { type: "string" },
    name: { type: "string" },
    account: { type: "string" },
    json: { type: "boolean" },
  };
  const { values } = parse("create", args, flags, 0);
  const plan = values.plan === undefined ? undefined : requiredString("create", values, "plan");
  if (plan !== undefined && !isPlanId(plan))
    throw new UsageError(`keys create: --plan must be one of ${PLAN_IDS.join(", ")}, got "${plan}"`);
  const name = requiredString("create", values, "name");
  const account = typeof values.account === "string" ? values.account : DEFAULT_ACCOUNT_NAME;
  if (account.trim() === "") throw new UsageError("keys create: --account must not be blank");
  return async (service, config) => {
    // The plan must exist in the catalog in force (Variant A has no lite or starter plan).
    const catalog = loadPlanCatalog(config.plansFile);
    if (plan !== undefined && findPlan(catalog, plan) === undefined) {
      throw new UsageError(
        `keys create: --plan "${plan}" is not in the plan catalog ${config.plansFile} (plans: ${catalog.plans.map((p) => p.id).join(", ")})`,
      );
    }
    const created = await service.createKey({
      ...(account.startsWith("acct_") ? { accountId: account } : { accountName: account }),
      ...(plan === undefined ? {} : { plan }),
      name,
    });
    if (values.json === true) {
      out(JSON.stringify({ id: created.info.id, key: created.key, plan: created.info.plan, name: created.info.name }));
    } else {
      const { info, account: owner } = created;
      out(`Created key ${info.id} (plan ${info.plan}, name "${info.name}") for account ${owner.name} (${owner.id}).`);
      out("This is the only time the key is shown; store it now:");
      out(created.key);
    }
    return 0;
  };
}

function list(args: string[]): Execute {
  const { values } = parse("list", args, { account: { type: "string" }, json: { type: "boolean" } }, 0);
  const filter = typeof values.account === "string" ? { accountId: values.account } : {};
  return async (service) => {
    const keys = await service.listKeys(filter);
    const now = new Date();
    if (values.json === true) {
      out(JSON.stringify(keys.map((k) => keyJson(k, now))));
      return 0;
    }
    if (keys.length === 0) {
      out("No keys. Create one with `threadsight keys create --plan PLAN --name NAME`.");
      return 0;
    }
    const header = ["ID", "NAME", "PLAN", "STATUS", "ACCOUNT", "PREFIX", "CREATED", "EXPIRES"];
    const rows = keys.map((k) => [
      k.id,
      k.name,
      k.plan,
      keyStatus(k, now),
      k.accountId,
      k.displayPrefix + "...",
      k.createdAt.toISOString(),
      iso(k.expiresAt) ?? "-",
    ]);
    out(table([header, ...rows]));
    return 0;
  };
}

function revoke(args: string[]): Execute {
  const { values, positionals } = parse("revoke", args, { json: { type: "boolean" } }, 1);
  const id = keyId("revoke", positionals);
  return async (service) => {
    const info = await service.revokeKey(id);
    if (values.json === true) out(JSON.stringify({ id: info.id, revoked_at: iso(info.revokedAt) }));
    else out(`Revoked key ${info.id} (${info.name}) at ${iso(info.revokedAt)}.`);
    return 0;
  };
}

function rotate(args: string[]): Execute {
  const { values, positionals } = parse("rotate", args, { json: { type: "boolean" } }, 1);
  const id = keyId("rotate", positionals);
  return async (service) => {
    const rotated = await service.rotateKey(id);
    const oldExpiresAt = iso(rotated.oldKey.expiresAt);
    if (values.json === true) {
      out(
        JSON.stringify({
          id: rotated.info.id,
          key: rotated.key,
          plan: rotated.info.plan,
          name: rotated.info.name,
          old_key_id: rotated.oldKey.id,
          old_key_expires_at: oldExpiresAt,
        }),
      );
    } else {
      out(`Rotated key ${rotated.oldKey.id} to ${rotated.info.id}; the old key keeps working until ${oldExpiresAt}.`);
      out("This is the only time the new key is shown; store it now:");
      out(rotated.key);
    }
    return 0;
  };
}

/** Every subcommand runs against a key service over the store (uncached: a CLI sees the truth). */
function overKeyService(sub: (args: string[]) => Execute): (args: string[]) => StoreExecute {
  return (args) => {
    const execute = sub(args);
    return (store, config) =>
      execute(createKeyService({ store, rotationGraceSeconds: config.keyRotationGraceSeconds, cacheTtlMs: 0 }), config);
  };
}

/** Runs `threadsight keys ...`; returns the exit code. */
export function run(argv: string[]): Promise<number> {
  return runStoreCommand(
    {
      name: "keys",
      help: HELP,
      subcommands: {
        create: overKeyService(create),
        list: overKeyService(list),
        revoke: overKeyService(revoke),
        rotate: overKeyService(rotate),
      },
      // A refused argument the service found (e.g. a key id of the wrong shape) is a usage error.
      exitCodeFor: (err) => (err instanceof AccountsError ? (err.code === "invalid_argument" ? 2 : 1) : undefined),
    },
    argv,
  );
}
