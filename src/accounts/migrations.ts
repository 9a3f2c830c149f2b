/**
 * Versioned schema of the accounts store, one entry per version with the SQL for each backend,
 * so both databases always hold the same logical schema at the same version number. Each store
 * applies, at open and inside one transaction, every entry above the version recorded in its
 * `schema_version` table; opening an up-to-date database changes nothing.
 *
 * Entries are append-only: a released migration is never edited, a change is a new entry.
 * Version 2 serves the developer portal: a password hash and a subscribed plan per account, and
 * the sessions of signed-in users; keys and usage do not depend on either. Version 3 makes the
 * account's plan the only plan: keys lose theirs and read their account's. Version 4 records who
 * made each account (an operator through the CLI, or a portal sign-up) and when its email was
 * verified, with the pending one-time verification tokens, so operator actions never trust a
 * name or an address that anyone could have registered.
 *
 * Timestamps are INTEGER milliseconds in SQLite and timestamptz in PostgreSQL; usage days are
 * TEXT `YYYY-MM-DD` in SQLite and `date` in PostgreSQL. Plan ids are not constrained in SQL on
 * purpose: the catalog lives in code and config, and a new plan should not need a migration.
 */

/** One schema version. */
export interface Migration {
  version: number;
  description: string;
  sqlite: string;
  postgres: string;
}

/** Every migration, in version order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "accounts, api_keys, usage",
    sqlite: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        email TEXT UNIQUE,
        created_at INTEGER NOT NULL,
        is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1))
      );
      CREATE INDEX accounts_name ON accounts (name);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT NOT NULL,
        plan TEXT NOT NULL,
        key_hash TEXT NOT NULL,
        display_prefix TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        expires_at INTEGER,
        rotated_to TEXT REFERENCES api_keys (id),
        overrides TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX api_keys_account ON api_keys (account_id);
      CREATE TABLE usage (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        day TEXT NOT NULL,
        operation TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, day, operation)
      ) WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE accounts (
        id text PRIMARY KEY,
        name text NOT NULL,
        email text UNIQUE,
        created_at timestamptz NOT NULL,
        is_admin boolean NOT NULL DEFAULT false
      );
      CREATE INDEX accounts_name ON accounts (name);
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        name text NOT NULL,
        plan text NOT NULL,
        key_hash text NOT NULL,
        display_prefix text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        expires_at timestamptz,
        rotated_to text REFERENCES api_keys (id),
        overrides jsonb NOT NULL DEFAULT '{}'
      );
      CREATE INDEX api_keys_account ON api_keys (account_id);
      CREATE TABLE usage (
        key_id text NOT NULL REFERENCES api_keys (id),
        day date NOT NULL,
        operation text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (key_id, day, operation)
      );
    `,
  },
  {
    version: 2,
    description: "portal: accounts.password_hash, accounts.plan, sessions",
    // Emails become lowercase so lookups are one indexed equality; an address whose lowercase
    // form is already taken by another account keeps its case rather than failing the upgrade.
    sqlite: `
      ALTER TABLE accounts ADD COLUMN password_hash TEXT;
      ALTER TABLE accounts ADD COLUMN plan TEXT;
      UPDATE accounts SET email = lower(email)
        WHERE email <> lower(email) AND NOT EXISTS (SELECT 1 FROM accounts b WHERE b.email = lower(accounts.email));
      CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX sessions_account ON sessions (account_id);
      CREATE INDEX sessions_expires ON sessions (expires_at);
    `,
    postgres: `
      ALTER TABLE accounts ADD COLUMN password_hash text;
      ALTER TABLE accounts ADD COLUMN plan text;
      UPDATE accounts SET email = lower(email)
        WHERE email <> lower(email) AND NOT EXISTS (SELECT 1 FROM accounts b WHERE b.email = lower(accounts.email));
      CREATE TABLE sessions (
        token_hash text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sessions_account ON sessions (account_id);
      CREATE INDEX sessions_expires ON sessions (expires_at);
    `,
  },
  {
    version: 3,
    description: "one plan per account: accounts.plan set for every account, api_keys.plan dropped",
    // docs/decisions/0101-one-plan-per-account.md: each account takes the highest-ranked of its
    // own plan and its unrevoked keys' plans, so no working key loses calls; an account with
    // neither gets its own plan or free. The rank is written out because migrations never change.
    sqlite: `
      UPDATE accounts SET plan = COALESCE(
        CASE MAX(
            CASE plan WHEN 'free' THEN 1 WHEN 'lite' THEN 2 WHEN 'starter' THEN 3 WHEN 'pro' THEN 4 WHEN 'enterprise' THEN 5 ELSE 0 END,
            COALESCE((SELECT MAX(CASE k.plan WHEN 'free' THEN 1 WHEN 'lite' THEN 2 WHEN 'starter' THEN 3 WHEN 'pro' THEN 4 WHEN 'enterprise' THEN 5 ELSE 0 END) FROM api_keys k
                      WHERE k.account_id = accounts.id AND k.revoked_at IS NULL), 0)) WHEN 1 THEN 'free' WHEN 2 THEN 'lite' WHEN 3 THEN 'starter' WHEN 4 THEN 'pro' WHEN 5 THEN 'enterprise' END,
        plan,
        'free');
      ALTER TABLE api_keys DROP COLUMN plan;
    `,
    postgres: `
      UPDATE accounts SET plan = COALESCE(
        CASE GREATEST(
            CASE plan WHEN 'free' THEN 1 WHEN 'lite' THEN 2 WHEN 'starter' THEN 3 WHEN 'pro' THEN 4 WHEN 'enterprise' THEN 5 ELSE 0 END,
            COALESCE((SELECT MAX(CASE k.plan WHEN 'free' THEN 1 WHEN 'lite' THEN 2 WHEN 'starter' THEN 3 WHEN 'pro' THEN 4 WHEN 'enterprise' THEN 5 ELSE 0 END) FROM api_keys k
                      WHERE k.account_id = accounts.id AND k.revoked_at IS NULL), 0)) WHEN 1 THEN 'free' WHEN 2 THEN 'lite' WHEN 3 THEN 'starter' WHEN 4 THEN 'pro' WHEN 5 THEN 'enterprise' END,
        plan,
        'free');
      ALTER TABLE api_keys DROP COLUMN plan;
    `,
  },
  {
    version: 4,
    description: "accounts.origin, accounts.email_verified_at, email_verifications",
    // Accounts from before this version with an email or a password came from the portal; the
    // rest were made by the CLI. No existing email counts as verified: nobody ever proved one.
    sqlite: `
      ALTER TABLE accounts ADD COLUMN origin TEXT NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'portal'));
      ALTER TABLE accounts ADD COLUMN email_verified_at INTEGER;
      UPDATE accounts SET origin = 'portal' WHERE email IS NOT NULL OR password_hash IS NOT NULL;
      CREATE TABLE email_verifications (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX email_verifications_account ON email_verifications (account_id);
    `,
    postgres: `
      ALTER TABLE accounts ADD COLUMN origin text NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'portal'));
      ALTER TABLE accounts ADD COLUMN email_verified_at timestamptz;
      UPDATE accounts SET origin = 'portal' WHERE email IS NOT NULL OR password_hash IS NOT NULL;
      CREATE TABLE email_verifications (
        token_hash text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX email_verifications_account ON email_verifications (account_id);
    `,
  },
];

/** The highest version in a migration list. */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** The version a fully migrated database is at. */
export const LATEST_SCHEMA_VERSION: number = latestVersion(MIGRATIONS);

/**
 * The migrations to apply to a database at version `current`, in order. Refuses a database
 * written by a newer build, which this code could misread.
 */
export function pendingMigrations(migrations: readonly Migration[], current: number, where: string): Migration[] {
  const latest = latestVersion(migrations);
  if (current > latest) {
    throw new Error(
      `${where} has accounts schema version ${current}, newer than this build knows (${latest}); upgrade threadsight`,
    );
  }
  return migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
}
