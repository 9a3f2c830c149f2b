/**
 * `threadsight accounts`: the operator's view of accounts and the one way to make an operator
 * (the portal has no self-service admin grant, on purpose). Works on the configured accounts
 * store (SQLite in THREADSIGHT_DATA_DIR, or PostgreSQL at DATABASE_URL). With --json, stdout
 * carries exactly one JSON value. Exit codes: 0 done, 1 failed (no such account, store
 * unreachable), 2 usage error.
 */

import { AccountsError } from "../accounts/accounts-error.js";
import { PLAN_IDS } from "../accounts/caller.js";
import { checkAccountName, createKeyService, requireVerifiedIfPortal } from "../accounts/key-service.js";
import { isPlanId } from "../accounts/plan-id.js";
import { newAccountId } from "../accounts/random-id.js";
import type { AccountRecord, AccountsStore } from "../accounts/store.js";
import { findPlan, loadPlanCatalog } from "../limits/plan-catalog.js";
import { accountSummaries } from "../portal/account-summaries.js";
import type { AccountSummary } from "../portal/portal-service.js";
import type { StoreExecute } from "./store-command.js";
import { out, parseSubcommand, runStoreCommand, UsageError } from "./store-command.js";
import { table } from "./text-table.js";

const HELP = `usage:
  threadsight accounts list [--json]
  threadsight accounts create NAME [--json]
  threadsight accounts admin EMAIL_OR_ID [--revoke] [--json]
  threadsight accounts set-plan EMAIL_OR_ID PLAN [--json]

  list     every account: id, name, email, origin, verified, plan, admin, active keys, calls
           this month (UTC)
  create   makes a new operator account named NAME (even if the name is taken) and prints its
           id; give that id to \`keys create --account\`
  admin    makes the account an operator (may list accounts in the portal); --revoke undoes it.
           A portal account must have verified its email first.
  set-plan moves the account, and so every one of its keys, to PLAN at once (operators only;
           no payment is taken: the portal's self-service changes go through billing)
  --json   print one JSON value instead of text`;

/** The JSON shape of one row (snake_case, like the other --json outputs). */
function summaryJson(a: AccountSummary): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    origin: a.origin,
    email_verified: a.emailVerified,
    plan: a.plan,
    is_admin: a.isAdmin,
    active_keys: a.activeKeys,
    calls_this_month: a.callsThisMonth,
    created_at: a.createdAt.toISOString(),
  };
}

function list(args: string[]): StoreExecute {
  const { values } = parseSubcommand("accounts list", args, { json: { type: "boolean" } }, 0);
  return async (store) => {
    const rows = await accountSummaries(store, new Date());
    if (values.json === true) {
      out(JSON.stringify(rows.map(summaryJson)));
      return 0;
    }
    if (rows.length === 0) {
      out("No accounts. Sign up in the portal, or create a key with `threadsight keys create`.");
      return 0;
    }
    const header = ["ID", "NAME", "EMAIL", "ORIGIN", "VERIFIED", "PLAN", "ADMIN", "ACTIVE KEYS", "CALLS THIS MONTH"];
    const body = rows.map((a) => [
      a.id,
      a.name,
      a.email ?? "-",
      a.origin,
      a.email === null ? "-" : a.emailVerified ? "yes" : "no",
      a.plan ?? "-",
      a.isAdmin ? "yes" : "no",
      String(a.activeKeys),
      String(a.callsThisMonth),
    ]);
    out(table([header, ...body]));
    return 0;
  };
}

async function findAccount(store: AccountsStore, ref: string): Promise<AccountRecord> {
  const found = ref.includes("@") ? await store.findAccountByEmail(ref) : await store.getAccount(ref);
  if (found === undefined) {
    throw new Error(
      `no account ${ref.includes("@") ? "with email" : "with id"} "${ref}" (see \`threadsight accounts list\`)`,
    );
  }
  return found;
}

function create(args: string[]): StoreExecute {
  const { values, positionals } = parseSubcommand("accounts create", args, { json: { type: "boolean" } }, 1);
  const raw = positionals[0] ?? "";
  if (raw.trim() === "") throw new UsageError("accounts create: give the account's NAME");
  return async (store) => {
    const name = checkAccountName(raw);
    const account = await store.createAccount({ id: newAccountId(), name, origin: "operator", createdAt: new Date() });
    if (values.json === true) out(JSON.stringify({ id: account.id, name: account.name, origin: account.origin }));
    else out(`Created operator account ${account.name} (${account.id}).`);
    return 0;
  };
}

function admin(args: string[]): StoreExecute {
  const { values, positionals } = parseSubcommand(
    "accounts admin",
    args,
    { revoke: { type: "boolean" }, json: { type: "boolean" } },
    1,
  );
  const ref = positionals[0]?.trim() ?? "";
  if (ref === "") throw new UsageError("accounts admin: give the account's EMAIL or id (acct_...)");
  const grant = values.revoke !== true;
  return async (store) => {
    const account = await findAccount(store, ref);
    // Anyone can sign up with a colleague's address; only a proved address may become operator.
    if (grant) requireVerifiedIfPortal(account);
    await store.setAdmin(account.id, grant);
    if (values.json === true) {
      out(JSON.stringify({ id: account.id, email: account.email, is_admin: grant }));
    } else {
      const who = `${account.name} (${account.email ?? "no email"}, ${account.id})`;
      out(grant ? `${who} is now an operator.` : `${who} is no longer an operator.`);
    }
    return 0;
  };
}

function setPlan(args: string[]): StoreExecute {
  const { values, positionals } = parseSubcommand("accounts set-plan", args, { json: { type: "boolean" } }, 2);
  const ref = positionals[0]?.trim() ?? "";
  const plan = positionals[1]?.trim() ?? "";
  if (ref === "" || plan === "")
    throw new UsageError("accounts set-plan: give the account's EMAIL or id (acct_...) and the PLAN");
  if (!isPlanId(plan))
    throw new UsageError(`accounts set-plan: PLAN must be one of ${PLAN_IDS.join(", ")}, got "${plan}"`);
  return async (store, config) => {
    const catalog = loadPlanCatalog(config.plansFile);
    if (findPlan(catalog, plan) === undefined) {
      throw new UsageError(
        `accounts set-plan: plan "${plan}" is not in the plan catalog ${config.plansFile} (plans: ${catalog.plans.map((p) => p.id).join(", ")})`,
      );
    }
    const account = await findAccount(store, ref);
    const from = account.plan;
    const moved = await createKeyService({ store, cacheTtlMs: 0 }).setAccountPlan(account.id, plan);
    const keys = (await store.listKeys({ accountId: account.id })).filter((k) => k.revokedAt === null).length;
    if (values.json === true) {
      out(JSON.stringify({ id: moved.id, previous_plan: from, plan: moved.plan, keys }));
    } else {
      out(
        `Account ${moved.name} (${moved.id}) moved from ${from} to ${moved.plan}; its ${keys} unrevoked key(s) follow it.`,
      );
    }
    return 0;
  };
}

/** Runs `threadsight accounts ...`; returns the exit code. */
export function run(argv: string[]): Promise<number> {
  return runStoreCommand(
    {
      name: "accounts",
      help: HELP,
      subcommands: { list, create, admin, "set-plan": setPlan },
      exitCodeFor: (err) => (err instanceof AccountsError && err.code === "invalid_argument" ? 2 : undefined),
    },
    argv,
  );
}
