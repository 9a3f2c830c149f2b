/**
 * The operator's view of accounts: one row per account with its plan, active keys and calls this
 * calendar month. Shared by the portal's admin page and `threadsight accounts list`, so both
 * count the same way. Three queries whatever the number of accounts.
 */
import { keyStatus } from "../accounts/key-status.js";
import type { AccountsStore, ApiKeyInfo } from "../accounts/store.js";
import { utcDay } from "../accounts/usage-args.js";
import { calendarMonth } from "../limits/quota-period.js";
import type { AccountSummary } from "./portal-service.js";

/** One row per account for the operator view and `threadsight accounts list`, oldest first. */
export async function accountSummaries(
  store: Pick<AccountsStore, "listAccounts" | "listKeys" | "usageTotalsByAccount">,
  at: Date,
): Promise<AccountSummary[]> {
  const month = calendarMonth(at);
  const [accounts, allKeys, totals] = await Promise.all([
    store.listAccounts(),
    store.listKeys(),
    store.usageTotalsByAccount(utcDay(month.start), utcDay(at)),
  ]);
  const keysOf = new Map<string, ApiKeyInfo[]>();
  for (const k of allKeys) {
    const list = keysOf.get(k.accountId) ?? [];
    list.push(k);
    keysOf.set(k.accountId, list);
  }
  return accounts.map((a) => {
    const ks = keysOf.get(a.id) ?? [];
    return {
      id: a.id,
      name: a.name,
      email: a.email,
      origin: a.origin,
      emailVerified: a.emailVerifiedAt !== null,
      isAdmin: a.isAdmin,
      plan: a.plan,
      createdAt: a.createdAt,
      activeKeys: ks.filter((k) => {
        const s = keyStatus(k, at);
        return s === "active" || s === "rotating";
      }).length,
      callsThisMonth: totals.get(a.id) ?? 0,
    };
  });
}
