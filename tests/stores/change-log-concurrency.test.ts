import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Db } from '../../src/stores/database.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import type { UserRow } from '../../src/stores/types.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// A reader that pages the change log from the last position it saw, while writers commit out of step with the
// order they began in (transactions held open, rolled back, bulk statements), misses no change: positions are
// handed out in commit order. It matters on PostgreSQL, where the writers run on connections of their own;
// SQLite has one writer at a time (and one connection per process here: better-sqlite3 waits synchronously).

const database = useMigratedDatabase();
const WRITERS = 4;
const ROUNDS = 32;
const DEADLINE_MS = 15_000;

let writerDb: Db;
let writers: Stores;
let reader: Stores;
let events: number[];

beforeAll(async () => {
  writerDb = isSqlite(database.db) ? database.db : createDb(database.url, { poolMax: WRITERS * 2 });
  writers = createStores(writerDb);
  reader = createStores(database.db);
  const org = await writers.users.create({ name: 'Concurrent Org' });
  events = [];
  for (const slug of ['conc-a', 'conc-b']) {
    events.push((await writers.events.create({ slug, name: slug, organizerIds: [org.id] })).id);
  }
});
afterAll(async () => {
  if (writerDb !== database.db) await writerDb.destroy();
});

class RolledBack extends Error {}

/**
 * One writer's rounds: each a transaction that records changes, some held open before commit, some undone.
 * Returns how many changes its committed rounds recorded.
 */
async function write(writer: number, until: number): Promise<number> {
  const mine: number[] = [];
  let recorded = 0;
  const pause = () => sleep(Math.floor(Math.random() * 15));
  for (let round = 0; round < ROUNDS && Date.now() < until; round++) {
    const name = `w${writer} r${round}`;
    await writers
      .transaction(async (s) => {
        switch (round % 4) {
          case 0: {
            // Two changes with a pause between: the first position is taken long before the commit.
            const user = await s.users.create({ name });
            await s.registrations.create(events[0]!, user.id);
            await pause();
            await s.registrations.create(events[1]!, user.id);
            mine.push(user.id);
            recorded += 2;
            break;
          }
          case 1: {
            // A registrant at both events: one statement, two changes.
            const user = mine.at(-1)!;
            await s.users.update(user, { name: `${name} renamed` });
            await pause();
            recorded += 2;
            break;
          }
          case 2: {
            // Many rows in one statement.
            const users: UserRow[] = [];
            for (let i = 0; i < 3; i++) users.push(await s.users.create({ name: `${name} bulk ${i}` }));
            await s.registrations.insertMany(users.map((u) => ({ eventId: events[0]!, userId: u.id })));
            recorded += 3;
            break;
          }
          default: {
            // Recorded, held, then undone: its position (PostgreSQL burns it) is never committed.
            const user = await s.users.create({ name });
            await s.registrations.create(events[1]!, user.id);
            await pause();
            throw new RolledBack();
          }
        }
      })
      .catch((err: unknown) => {
        if (!(err instanceof RolledBack)) throw err;
      });
  }
  return recorded;
}

test('a reader paging from the last position it saw collects every committed change, none skipped', async () => {
  const start = await reader.changes.head();
  const until = Date.now() + DEADLINE_MS;
  let writing = true;
  const written = Promise.all(Array.from({ length: WRITERS }, (_, w) => write(w, until))).finally(() => {
    writing = false;
  });

  const collected: number[] = [];
  let last = start;
  let readsWhileWriting = 0;
  const readPage = async () => {
    const rows = await reader.changes.after(last, 7);
    for (const row of rows) {
      expect(row.position).toBeGreaterThan(last);
      collected.push(row.position);
      last = row.position;
    }
    return rows.length;
  };
  while (writing) {
    if ((await readPage()) > 0) readsWhileWriting += 1;
    await sleep(Math.floor(Math.random() * 3));
  }
  const recorded = (await written).reduce((a, b) => a + b, 0);
  while ((await readPage()) > 0);

  const committed = (
    await database.db('changes').where('position', '>', start).orderBy('position').pluck('position')
  ).map(Number);
  expect(recorded).toBeGreaterThan(WRITERS * 7);
  expect(committed).toHaveLength(recorded);
  expect(readsWhileWriting).toBeGreaterThan(5);
  expect(collected).toEqual(committed);
}, 30_000);
