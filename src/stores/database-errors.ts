/** The database cannot be reached or opened: its message is one line saying which (never a password) and why. */
export class DatabaseUnavailable extends Error {}

/** What a system error says after its code: `ENOTDIR: not a directory, mkdir '/x'` → `not a directory`. */
export const reasonOf = (err: unknown): string => {
  const message = err instanceof Error ? err.message : String(err);
  return (/^[A-Z]+: ([^,\n]+)/.exec(message)?.[1] ?? message.split('\n')[0]!).trim();
};

/** Network failures of a connection attempt, as the operator would say them. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EADDRNOTAVAIL: 'address not available',
};

/** SQLSTATEs PostgreSQL answers a connection with: bad login (class 28), no such database, not accepting any. */
const REFUSED_CONNECTION = /^(28...|3D000|57P03|53300)$/;

/** better-sqlite3's codes for a file that cannot be opened as a database. */
const SQLITE_CANNOT_OPEN = new Set(['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_PERM']);

/** Where a PostgreSQL URL points, as host:port: never its user or password. */
function pgAddress(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const host = url.hostname || url.searchParams.get('host') || 'localhost';
    return `${host}:${url.port || url.searchParams.get('port') || '5432'}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/**
 * When `err` says the database cannot be reached or opened (at start: nothing listening, no such host, a
 * refused login, a file that is not a database), a DatabaseUnavailable saying so in one line; otherwise undefined.
 */
export function databaseUnavailable(err: unknown, databaseUrl: string): DatabaseUnavailable | undefined {
  if (err instanceof DatabaseUnavailable) return err;
  if (!(err instanceof Error)) return undefined;
  // A host with several addresses fails with an AggregateError of one error per address.
  const first = err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err;
  const code = String((err as NodeJS.ErrnoException).code ?? (first as NodeJS.ErrnoException).code ?? '');
  if (databaseUrl.startsWith('sqlite:')) {
    if (!SQLITE_CANNOT_OPEN.has(code)) return undefined;
    const filename = databaseUrl.slice('sqlite:'.length);
    return new DatabaseUnavailable(`the SQLite database ${filename} cannot be opened (${reasonOf(first)})`);
  }
  const where = pgAddress(databaseUrl);
  const reason =
    NETWORK_REASONS[code] ??
    (/^Knex: Timeout acquiring a connection/.test(err.message) ? 'no connection in time' : undefined) ??
    (/^Connection terminated/.test(err.message) ? 'connection closed' : undefined);
  if (reason) return new DatabaseUnavailable(`the database is not reachable at ${where} (${reason})`);
  if (REFUSED_CONNECTION.test(code)) {
    return new DatabaseUnavailable(`the database at ${where} refused the connection (${reasonOf(first)})`);
  }
  return undefined;
}
