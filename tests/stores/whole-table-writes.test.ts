import { Readable } from 'node:stream';
import { NdjsonImporter } from '../../src/services/import/ndjson-import.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { ndjson } from '../helpers/ndjson.js';

// Clearing a whole table by hand, with triggers on, skips none of them: the change log, the data epoch
// (replayed answers) and the auth epoch (cached bearer lookups) see it on both databases. PostgreSQL's
// TRUNCATE, which fires no row or DELETE trigger, is refused on every watched table and on the one-row
// tables every request reads; SQLite's `DELETE FROM t` runs them row by row.

const database = useMigratedDatabase();
let stores: Stores;

beforeAll(async () => {
  stores = createStores(database.db);
  const lines = ndjson(
    { type: 'user', email: 'org@clear.test', name: 'Org' },
    { type: 'user', email: 'ann@clear.test', name: 'Ann' },
    { type: 'user', email: 'bob@clear.test', name: 'Bob' },
    { type: 'event', slug: 'clear-a', name: 'A', organizers: ['org@clear.test'] },
    { type: 'registration', event: 'clear-a', user: 'ann@clear.test' },
    { type: 'registration', event: 'clear-a', user: 'bob@clear.test' },
  );
  await new NdjsonImporter(stores).run(Readable.from([lines]));
  await database.db('oidc_payloads').insert([
    { model: 'AccessToken', id: 'clear-1', payload: '{}' },
    { model: 'AccessToken', id: 'clear-2', payload: '{}' },
  ]);
});

const count = async (table: string) => Number((await database.db(table).count({ n: '*' }))[0]!.n);

/** PostgreSQL's own triggers on Roster's tables, by table (internal ones, for foreign keys, left out). */
async function triggersByTable(): Promise<Map<string, string[]>> {
  const { rows } = await database.db.raw<{ rows: { table: string; name: string }[] }>(
    'SELECT c.relname AS "table", t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal',
  );
  const byTable = new Map<string, string[]>();
  for (const { table, name } of rows) byTable.set(table, [...(byTable.get(table) ?? []), name]);
  return byTable;
}

const DOMAIN_TABLES = ['users', 'events', 'event_organizers', 'registrations', 'oidc_payloads', 'changes'];
const ONE_ROW_TABLES = ['auth_epoch', 'data_epoch', 'change_log_state'];

test('on PostgreSQL, TRUNCATE of every table the log or the epochs watch is refused, and nothing is removed', async () => {
  if (isSqlite(database.db)) {
    // SQLite has no TRUNCATE at all: the statement is not even parsed.
    await expect(database.db.raw('TRUNCATE registrations')).rejects.toThrow(/syntax error/);
    return;
  }
  // Found from the triggers themselves, not from the migration's list: a table watched later is found too.
  const byTable = await triggersByTable();
  // A refusal is no feed: the change log is watched for the head trigger it feeds, not for its guards.
  const feeds = (name: string) =>
    /_(data|auth)_epoch$|^changes_|^webhooks_queue$/.test(name) && !/_(refuse_truncate|guard)$/.test(name);
  const watched = [...byTable].filter(([, names]) => names.some(feeds)).map(([table]) => table);
  const refusing = [...byTable].filter(([, names]) => names.some((n) => n.endsWith('_refuse_truncate')));
  expect(watched).toEqual(expect.arrayContaining(['registrations', 'oidc_payloads', 'personal_tokens', 'changes']));
  expect(refusing.map(([table]) => table).sort()).toEqual([...watched, ...ONE_ROW_TABLES].sort());

  const before = Object.fromEntries(await Promise.all(DOMAIN_TABLES.map(async (t) => [t, await count(t)])));
  for (const table of watched) {
    await expect(database.db.raw(`TRUNCATE ${table} CASCADE`)).rejects.toMatchObject({
      code: '0A000',
      message: expect.stringContaining(`TRUNCATE ${table} is refused`),
      hint:
        table === 'changes'
          ? 'the instances prune the change log themselves, after CHANGES_RETENTION_DAYS'
          : `DELETE FROM ${table} removes the same rows and records it`,
    });
  }
  const epochs = await stores.epochs.current();
  for (const table of ONE_ROW_TABLES) {
    await expect(database.db.raw(`TRUNCATE ${table}`)).rejects.toMatchObject({
      code: '0A000',
      message: expect.stringContaining(`TRUNCATE ${table} is refused: every instance reads its one row`),
    });
  }
  expect(await stores.epochs.current()).toEqual(epochs);
  // A TRUNCATE of several tables is refused at the first watched one it names.
  await expect(database.db.raw('TRUNCATE webhooks, events CASCADE')).rejects.toMatchObject({
    code: '0A000',
    message: expect.stringContaining('TRUNCATE events is refused'),
  });
  const after = Object.fromEntries(await Promise.all(DOMAIN_TABLES.map(async (t) => [t, await count(t)])));
  expect(after).toEqual(before);
  expect(after.registrations).toBe(2);
});

test('a whole-table DELETE records each removed registration in the change log, where replays and the feed learn of it', async () => {
  const before = await stores.epochs.current();
  const from = await stores.changes.head();
  await database.db.raw('DELETE FROM registrations');
  const after = await stores.epochs.current();
  expect(await count('registrations')).toBe(0);
  const told = await stores.changes.after(from, 100);
  expect(told.map((c) => [c.type, c.eventSlug])).toEqual([
    ['registration.deleted', 'clear-a'],
    ['registration.deleted', 'clear-a'],
  ]);
  expect(Number(after.changes)).toBe(told.at(-1)!.position);
  expect(after.data).toBe(before.data);
});

test('a whole-table DELETE of the access tokens moves the auth epoch, ending every cached bearer lookup', async () => {
  const before = await stores.epochs.current();
  await database.db.raw('DELETE FROM oidc_payloads');
  const after = await stores.epochs.current();
  expect(await count('oidc_payloads')).toBe(0);
  expect(Number(after.auth)).toBeGreaterThan(Number(before.auth));
});

test('the one row of each epoch and of the change log state stays: not deleted, added to, renumbered or rewound', async () => {
  const epochs = await stores.epochs.current();
  const prunedThrough = await stores.changes.prunedThrough();
  const rewound: Record<string, Record<string, number>> = {
    auth_epoch: { value: 0 },
    data_epoch: { value: 0 },
    change_log_state: { pruned_through: -1 },
  };
  for (const table of ONE_ROW_TABLES) {
    await expect(database.db.raw(`DELETE FROM ${table}`)).rejects.toThrow(
      `DELETE FROM ${table} is refused: every instance reads its one row`,
    );
    await expect(database.db(table).insert({ id: 2 })).rejects.toThrow(`${table} has its one row already`);
    await expect(database.db(table).update({ id: 2 })).rejects.toThrow(
      `${table} keeps its id, and its counters only grow`,
    );
    await expect(database.db(table).update(rewound[table]!)).rejects.toThrow('counters only grow');
    if (isSqlite(database.db)) {
      // REPLACE deletes the row without firing DELETE triggers, then inserts: refused as an insert.
      await expect(database.db.raw(`INSERT OR REPLACE INTO ${table} (id) VALUES (1)`)).rejects.toThrow(
        `${table} has its one row already`,
      );
    }
    expect(await count(table)).toBe(1);
  }
  await expect(database.db('data_epoch').update({ changes_head: 0 })).rejects.toThrow('counters only grow');
  expect(await stores.epochs.current()).toEqual(epochs);
  expect(await stores.changes.prunedThrough()).toBe(prunedThrough);
});
