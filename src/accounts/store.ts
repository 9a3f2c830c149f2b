/**
 * The accounts store: accounts, API keys, portal sessions and per-day usage counters, so the key
 * service, the limits interceptor and the portal work the same on SQLite (embedded default) and
 * PostgreSQL. Each concern has its own interface and, per backend, its own file; the store is
 * their union. Both backends pass one contract suite (test/accounts/store-contract.ts).
 *
 * The store holds facts only; rules (key format, hashing, expiry, plan checks) live in the key
 * service. It never sees a key's secret, only its SHA-256 hash.
 */
import type { AccountRecords } from "./account-records.js";
import type { KeyRecords } from "./key-records.js";
import type { SessionRecords } from "./session-records.js";
import type { UsageRecords } from "./usage-records.js";

export type {
  AccountOrigin,
  AccountRecord,
  AccountRecords,
  EmailVerificationRecord,
  NewAccount,
} from "./account-records.js";
export { normalizeEmail } from "./account-records.js";
export type { ApiKeyInfo, ApiKeyRecord, KeyRecords, NewApiKey } from "./key-records.js";
export { withoutHash } from "./key-records.js";
export type { SessionRecord, SessionRecords } from "./session-records.js";
export type { AccountDayUsage, UsageRecords, UsageRow } from "./usage-records.js";

/** The store every accounts consumer talks to. Every method is async; none caches. */
export interface AccountsStore extends AccountRecords, SessionRecords, KeyRecords, UsageRecords {
  /** Which backend this is, for logs and readiness messages. */
  readonly kind: "sqlite" | "postgres";

  /** Highest migration applied; tests and operators use it to see what a database holds. */
  schemaVersion(): Promise<number>;
  /** Resolves when the database answers a trivial query; rejects otherwise (readiness). */
  ping(): Promise<void>;
  /** Releases the connection(s); the store is unusable afterwards. */
  close(): Promise<void>;
}
