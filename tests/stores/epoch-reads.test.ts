import { createDb, idleSqliteConnection, type Db } from '../../src/stores/database.js';
import { EpochStore, type Epochs } from '../../src/stores/epoch-store.js';
import { freshDatabase, useMigratedDatabase } from '../helpers/harness.js';

// Every API request reads the epochs. Requests that ask together share one read, but none is ever answered
// with a value read before it asked: a write committed before a request asks is always seen.
const database = useMigratedDatabase();
const sqlite = () => !database.url.startsWith('postgres');
const BUMP = 'UPDATE data_epoch SET value = value + 1 WHERE id = 1';

/** Another connection to the same database: another instance, or the CLI. */
let other: Db;
beforeAll(async () => {
  other = createDb(database.url);
  await other.raw('SELECT 1');
});
afterAll(() => other.destroy());

/** Commits a data-epoch bump on the other connection; on SQLite synchronously, within the caller's turn. */
function bumpElsewhere(): Promise<unknown> {
  if (sqlite()) {
    (idleSqliteConnection(other)!.prepare(BUMP) as unknown as { run(): unknown }).run();
    return Promise.resolve();
  }
  return other.raw(BUMP);
}

/** Counts the epochs reads the store makes (the statement on SQLite's connection, a pooled connection on PostgreSQL). */
function countReads(db: Db): { count(): number; restore(): void } {
  let count = 0;
  if (sqlite()) {
    const conn = idleSqliteConnection(db)!;
    const prepare = conn.prepare.bind(conn);
    conn.prepare = (sql: string) => {
      if (sql.includes('FROM auth_epoch a, data_epoch d')) count += 1;
      return prepare(sql);
    };
    return { count: () => count, restore: () => void (conn.prepare = prepare) };
  }
  const client = db.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => {
    count += 1;
    return acquire();
  };
  return { count: () => count, restore: () => void (client.acquireConnection = acquire) };
}

test('calls made together share a read, and every one sees a write committed before it asked', async () => {
  const store = new EpochStore(database.db);
  const before = Number((await store.current()).data);
  const reads = countReads(database.db);
  try {
    let calls: Promise<Epochs>[];
    if (sqlite()) {
      // The first asks before the write commits; the read is made after all three asked, so it sees the write.
      const first = store.current();
      await bumpElsewhere();
      calls = [first, store.current(), store.current()];
    } else {
      await bumpElsewhere();
      calls = [store.current(), store.current(), store.current()];
    }
    const answers = await Promise.all(calls);
    expect(answers.map((epochs) => Number(epochs.data))).toEqual([before + 1, before + 1, before + 1]);
    // One read for the turn, made after all three asked.
    expect(reads.count()).toBe(1);
  } finally {
    reads.restore();
  }
});

if (process.env.TEST_DATABASE_URL) {
  test('on PostgreSQL a call in a later turn, while an earlier read is under way, waits for a read of its own', async () => {
    const store = new EpochStore(database.db);
    const before = Number((await store.current()).data);
    const client = database.db.client as {
      acquireConnection(): Promise<unknown>;
      releaseConnection(conn: unknown): Promise<unknown>;
    };
    const acquire = client.acquireConnection.bind(client);
    const release = client.releaseConnection.bind(client);
    let reads = 0;
    let ran!: () => void;
    const firstRan = new Promise<void>((resolve) => (ran = resolve));
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    client.acquireConnection = () => {
      reads += 1;
      return acquire();
    };
    // The first read's statement has answered, but its read is not over until its connection goes back.
    client.releaseConnection = async (conn) => {
      if (reads === 1) {
        ran();
        await held;
      }
      return release(conn);
    };
    try {
      const first = store.current();
      await firstRan;
      await bumpElsewhere();
      const later = store.current();
      await new Promise((resolve) => setImmediate(resolve));
      letGo();
      expect(Number((await first).data)).toBe(before);
      expect(Number((await later).data)).toBe(before + 1);
      expect(reads).toBe(2);
    } finally {
      client.acquireConnection = acquire;
      client.releaseConnection = release;
    }
  });
}

test('a call made after a read was made reads again', async () => {
  const store = new EpochStore(database.db);
  const reads = countReads(database.db);
  try {
    const a = await store.current();
    await bumpElsewhere();
    const b = await store.current();
    expect(Number(b.data)).toBe(Number(a.data) + 1);
    expect(reads.count()).toBe(2);
  } finally {
    reads.restore();
  }
});

test('inside a transaction the read is the transaction’s own, and sees its uncommitted write', async () => {
  const outside = new EpochStore(database.db);
  const before = Number((await outside.current()).data);
  await database.db.transaction(async (trx) => {
    await trx.raw(BUMP);
    expect(Number((await new EpochStore(trx).current()).data)).toBe(before + 1);
  });
  expect(Number((await outside.current()).data)).toBe(before + 1);
});

test('a read asked while a transaction is open never sees its write, and one rolled back never shows', async () => {
  const store = new EpochStore(database.db);
  const before = Number((await store.current()).data);
  let during: Promise<Epochs> | undefined;
  const rolledBack = database.db.transaction(async (trx) => {
    await trx.raw(BUMP);
    // On SQLite the transaction holds the one connection: the read's turn (an earlier immediate, run first)
    // comes and goes while it is open.
    during = store.current();
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error('rolled back');
  });
  await expect(rolledBack).rejects.toThrow('rolled back');
  expect(Number((await during!).data)).toBe(before);
  expect(Number((await store.current()).data)).toBe(before);
});

test('a failed read fails every call that shared it, and the next call reads again', async () => {
  const fresh = await freshDatabase();
  const db = createDb(fresh.url);
  try {
    // Opened and never migrated: the epochs' tables do not exist, so every read fails.
    await db.raw('SELECT 1');
    const store = new EpochStore(db);
    const reads = countReads(db);
    try {
      const together = [store.current(), store.current()];
      for (const call of together) await expect(call).rejects.toThrow(/auth_epoch|data_epoch/);
      // One read for the turn; the next call reads again.
      expect(reads.count()).toBe(1);
      await expect(store.current()).rejects.toThrow(/auth_epoch|data_epoch/);
      expect(reads.count()).toBe(2);
    } finally {
      reads.restore();
    }
  } finally {
    await db.destroy();
    await fresh.drop();
  }
});
