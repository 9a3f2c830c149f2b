/**
 * Opens the posts table of a LanceDB directory through a connection of its own, as another
 * process would, so tests can read what a writer left (indexes, their statistics, metadata) or
 * write behind its back.
 */

import type { Table } from "@lancedb/lancedb";
import { connect } from "@lancedb/lancedb";

/** Runs `fn` on the posts table in `dir`, closing table and connection after it. */
export async function withPostsTable<T>(dir: string, fn: (table: Table) => Promise<T>): Promise<T> {
  const db = await connect(dir);
  const table = await db.openTable("posts");
  try {
    return await fn(table);
  } finally {
    table.close();
    db.close();
  }
}
