/** A query helper shared by the PostgreSQL store's parts: the rows of one statement. */
import type pg from "pg";

/** Runs one statement on the pool and returns its rows. */
export function pgRows(pool: pg.Pool) {
  return async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> =>
    (await pool.query<R>(sql, values)).rows;
}
