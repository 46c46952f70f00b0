import type { Knex } from 'knex';
import pg from 'pg';
import type { Db } from './database.js';
import { isSqlite } from './dialect.js';
import { CHANGES_CHANNEL } from './migrations/20261128000000_change_notify.js';

/** After a lost listening connection, the wait before the next try. */
const RECONNECT_MS = 1000;

export interface ChangeSignal {
  close(): Promise<void>;
}

/**
 * PostgreSQL: calls `onSignal` whenever a transaction that added changes commits, at any instance (LISTEN on
 * one connection of its own, outside the pool). Once (re)connected it signals too: notifications sent while
 * it was away are lost, the changes are not. Undefined on SQLite, which has no notifications.
 */
export function listenForChanges(
  db: Db,
  onSignal: () => void,
  onError: (err: unknown) => void,
): ChangeSignal | undefined {
  if (isSqlite(db)) return undefined;
  // What knex made of DATABASE_URL: the pool's connections use the same.
  const settings = (db.client as Knex.Client & { connectionSettings: pg.ClientConfig }).connectionSettings;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const next = new pg.Client({ ...settings, keepAlive: true });
    client = next;
    const lost = (err?: unknown) => {
      if (client !== next) return;
      client = undefined;
      next.removeAllListeners('notification');
      next.end().catch(() => {});
      if (closed) return;
      if (err) onError(err);
      retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', () => onSignal());
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (client === next && !closed) onSignal();
    } catch (err) {
      lost(err);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
