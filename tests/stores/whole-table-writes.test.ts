import { Readable } from 'node:stream';
import { REFUSED } from '../../src/stores/migrations/20261202000000_refuse_truncate.js';
import { NdjsonImporter } from '../../src/services/import/ndjson-import.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// Clearing a whole table by hand can skip no trigger: the change log, the data epoch (replayed answers) and
// the auth epoch (cached bearer lookups) see it on both databases. PostgreSQL's TRUNCATE, which fires no
// row or DELETE trigger, is refused on every watched table; SQLite's `DELETE FROM t` runs them row by row.

const database = useMigratedDatabase();
let stores: Stores;

beforeAll(async () => {
  stores = createStores(database.db);
  const lines = [
    { type: 'user', email: 'org@clear.test', name: 'Org' },
    { type: 'user', email: 'ann@clear.test', name: 'Ann' },
    { type: 'user', email: 'bob@clear.test', name: 'Bob' },
    { type: 'event', slug: 'clear-a', name: 'A', organizers: ['org@clear.test'] },
    { type: 'registration', event: 'clear-a', user: 'ann@clear.test' },
    { type: 'registration', event: 'clear-a', user: 'bob@clear.test' },
  ];
  await new NdjsonImporter(stores).run(Readable.from([lines.map((l) => JSON.stringify(l)).join('\n') + '\n']));
  await database.db('oidc_payloads').insert([
    { model: 'AccessToken', id: 'clear-1', payload: '{}' },
    { model: 'AccessToken', id: 'clear-2', payload: '{}' },
  ]);
});

const count = async (table: string) => Number((await database.db(table).count({ n: '*' }))[0]!.n);

test('on PostgreSQL, TRUNCATE of each watched table is refused with the DELETE to use, and nothing changes', async () => {
  if (isSqlite(database.db)) {
    // SQLite has no TRUNCATE at all: the statement is not even parsed.
    await expect(database.db.raw('TRUNCATE registrations')).rejects.toThrow(/syntax error/);
    return;
  }
  const before = await stores.epochs.current();
  const rows = await count('registrations');
  for (const table of REFUSED) {
    const refused = database.db.raw(`TRUNCATE ${table} CASCADE`);
    await expect(refused).rejects.toMatchObject({
      code: '0A000',
      message: expect.stringContaining(`TRUNCATE ${table} is refused`),
      hint: `DELETE FROM ${table} removes the same rows and records it`,
    });
  }
  // A TRUNCATE that reaches a watched table through a foreign key's CASCADE is refused too.
  await expect(database.db.raw('TRUNCATE webhooks, events CASCADE')).rejects.toMatchObject({ code: '0A000' });
  expect(await count('registrations')).toBe(rows);
  expect(await count('oidc_payloads')).toBeGreaterThanOrEqual(2);
  expect(await stores.epochs.current()).toEqual(before);
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
