/**
 * Transactions on one client of a node-postgres pool: BEGIN, the caller's statements, COMMIT, or
 * ROLLBACK when any of them fails. The stores of accounts, monitors and sources share these so
 * that every one of them releases its client and rolls back the same way.
 */
import type pg from "pg";

/** Runs `fn` in a transaction on one client of the pool. */
export async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Runs `fn` in a transaction that first takes the advisory lock `lock`, so transactions of every
 * process using the same lock run one at a time; PostgreSQL releases the lock at COMMIT or ROLLBACK.
 */
export async function inLockedTransaction<T>(
  pool: pg.Pool,
  lock: number,
  fn: (c: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1)", [lock]);
    return fn(c);
  });
}
