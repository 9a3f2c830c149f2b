/**
 * `threadsight accounts`: the operator's view of accounts and the one way to make an operator
 * (the portal has no self-service admin grant, on purpose). Works on the configured accounts
 * store (SQLite in THREADSIGHT_DATA_DIR, or PostgreSQL at DATABASE_URL). With --json, stdout
 * carries exactly one JSON value. Exit codes: 0 done, 1 failed (no such account, store
 * unreachable), 2 usage error.
 */
import { parseArgs } from "node:util";
import { openAccountsStore } from "../accounts/open-store.js";
import type { AccountRecord, AccountsStore } from "../accounts/store.js";
import { loadConfig } from "../config.js";
import { accountSummaries } from "../portal/account-summaries.js";
import type { AccountSummary } from "../portal/portal-service.js";
import { table } from "./text-table.js";

const HELP = `usage:
  threadsight accounts list [--json]
  threadsight accounts admin EMAIL_OR_ID [--revoke] [--json]

  list     every account: id, name, email, plan, admin, active keys, calls this month (UTC)
  admin    makes the account an operator (may list accounts in the portal); --revoke undoes it
  --json   print one JSON value instead of text`;

/** A mistake in the command line: exit 2 with the message. */
class UsageError extends Error {}

/** A refused operation the operator can fix (unknown account): exit 1 with the message. */
class NotFound extends Error {}

type Execute = (store: AccountsStore) => Promise<void>;

const out = (text: string): void => {
  process.stdout.write(text + "\n");
};

function parse(sub: string, args: string[], options: { revoke?: true }, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        json: { type: "boolean" },
        ...(options.revoke ? { revoke: { type: "boolean" as const } } : {}),
      },
      allowPositionals: positionals > 0,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`accounts ${sub}: ${(err as Error).message}`);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`accounts ${sub}: unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return parsed;
}

/** The JSON shape of one row (snake_case, like the other --json outputs). */
function summaryJson(a: AccountSummary): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    plan: a.plan,
    is_admin: a.isAdmin,
    active_keys: a.activeKeys,
    calls_this_month: a.callsThisMonth,
    created_at: a.createdAt.toISOString(),
  };
}

function list(args: string[]): Execute {
  const { values } = parse("list", args, {}, 0);
  return async (store) => {
    const rows = await accountSummaries(store, new Date());
    if (values.json === true) {
      out(JSON.stringify(rows.map(summaryJson)));
      return;
    }
    if (rows.length === 0) {
      out("No accounts. Sign up in the portal, or create a key with `threadsight keys create`.");
      return;
    }
    const header = ["ID", "NAME", "EMAIL", "PLAN", "ADMIN", "ACTIVE KEYS", "CALLS THIS MONTH"];
    const body = rows.map((a) => [
      a.id,
      a.name,
      a.email ?? "-",
      a.plan ?? "-",
      a.isAdmin ? "yes" : "no",
      String(a.activeKeys),
      String(a.callsThisMonth),
    ]);
    out(table([header, ...body]));
  };
}

async function findAccount(store: AccountsStore, ref: string): Promise<AccountRecord> {
  const found = ref.includes("@") ? await store.findAccountByEmail(ref) : await store.getAccount(ref);
  if (found === undefined) {
    throw new NotFound(`no account ${ref.includes("@") ? "with email" : "with id"} "${ref}" (see \`threadsight accounts list\`)`);
  }
  return found;
}

function admin(args: string[]): Execute {
  const { values, positionals } = parse("admin", args, { revoke: true }, 1);
  const ref = positionals[0]?.trim() ?? "";
  if (ref === "") throw new UsageError("accounts admin: give the account's EMAIL or id (acct_...)");
  const grant = values.revoke !== true;
  return async (store) => {
    const account = await findAccount(store, ref);
    await store.setAdmin(account.id, grant);
    if (values.json === true) {
      out(JSON.stringify({ id: account.id, email: account.email, is_admin: grant }));
    } else {
      const who = `${account.name} (${account.email ?? "no email"}, ${account.id})`;
      out(grant ? `${who} is now an operator.` : `${who} is no longer an operator.`);
    }
  };
}

const SUBCOMMANDS: Record<string, (args: string[]) => Execute> = { list, admin };

/** Runs `threadsight accounts ...`; returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "help" || [sub, ...rest].some((a) => a === "--help" || a === "-h")) {
    out(HELP);
    return sub === undefined ? 2 : 0;
  }
  const handler = SUBCOMMANDS[sub];
  if (handler === undefined) {
    process.stderr.write(`threadsight accounts: unknown subcommand "${sub}" (list, admin)\n\n${HELP}\n`);
    return 2;
  }
  try {
    // Parse before touching config or the store, so a usage error never creates a database.
    const execute = handler(rest);
    const config = loadConfig();
    const store = await openAccountsStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    try {
      await execute(store);
      return 0;
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`threadsight ${err.message}\nRun \`threadsight accounts --help\` for usage.\n`);
      return 2;
    }
    process.stderr.write(`threadsight accounts ${sub}: ${(err as Error).message}\n`);
    return 1;
  }
}
