import { createDb, isSqlite, migrate, type Db } from '../src/db/knex.js';
import { createStores } from '../src/db/stores.js';
import { freshDatabase } from './helpers/harness.js';
import { spawnServer } from './helpers/process.js';

// Graceful shutdown of a real process: SIGTERM while a request is in flight lets it finish, then exits 0.
let database: { url: string; drop(): Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url);
  await migrate(db);
});

afterAll(async () => {
  await db.destroy();
  await database.drop();
});

/** Holds the database's write lock from another connection, so the server's next write waits for real. */
async function holdWriteLock(): Promise<() => Promise<void>> {
  const trx = await db.transaction();
  if (isSqlite(db)) await trx('service_secrets').insert({ name: 'held-lock', value: 'x', created_at: 0 });
  else await trx.raw('LOCK TABLE rate_limits IN ACCESS EXCLUSIVE MODE');
  return async () => {
    await trx.rollback();
  };
}

test('SIGTERM with a request in flight: the request gets its 200, then the process exits 0', async () => {
  const stores = createStores(db);
  const owner = await stores.users.create({ email: 'term@example.com', name: 'Term' });
  const { appToken } = await stores.apps.create({
    ownerId: owner.id,
    name: 'Term',
    redirectUris: ['https://t.example/cb'],
  });
  const server = await spawnServer({ NODE_ENV: 'production', DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  const exited = new Promise<number | null>((resolve) => server.proc.once('exit', (code) => resolve(code)));

  const release = await holdWriteLock();
  // The request spends rate-limit points, a write: it waits on the lock, in flight.
  const inFlight = fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.proc.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await release();

  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ data: { viewer: { tokenKind: 'APP' } } });
  const code = await exited;
  expect(code).toBe(0);
  const log = server.output();
  expect(log).toContain('"msg":"shutting down"');
  expect(log.indexOf('"signal":"SIGTERM"')).toBeGreaterThan(-1);
  // Gone: nothing listens any more.
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
});
