/** How a PostgreSQL URL is named in messages: host, port and database, never its credentials. */
export function postgresLabel(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "PostgreSQL";
  }
}
