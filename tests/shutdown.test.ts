import { loadConfig } from '../src/config.js';
import { isSqlite } from '../src/lib/dialect.js';
import { createDb, migrate, type Db } from '../src/stores/knex.js';
import { createStores } from '../src/stores/stores.js';
import { useBuiltDist } from './helpers/build.js';
import { freshDatabase } from './helpers/harness.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';

// Graceful shutdown of a real process: on SIGTERM readiness fails at once, the server keeps serving for
// SHUTDOWN_DELAY_MS (answering with Connection: close), then drains what is in flight and exits 0.
useBuiltDist();
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
  const server = await spawnServer({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    SHUTDOWN_DELAY_MS: '0',
  });
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

async function appToken(email: string): Promise<string> {
  const stores = createStores(db);
  const owner = await stores.users.create({ email, name: email });
  return (await stores.apps.create({ ownerId: owner.id, name: email, redirectUris: ['https://t.example/cb'] }))
    .appToken;
}

const exitOf = (server: ServerProcess) =>
  new Promise<{ code: number | null; at: number }>((resolve) =>
    server.proc.once('exit', (code) => resolve({ code, at: Date.now() })),
  );

test('SIGTERM in the middle of a burst of 100 concurrent requests: every one is answered 200, then exit 0', async () => {
  const token = await appToken('burst@example.com');
  const delayMs = 2000;
  const server = await spawnServer({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    SHUTDOWN_DELAY_MS: String(delayMs),
    LOG_LEVEL: 'info',
  });
  const exited = exitOf(server);
  const ask = () =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
    }).then(
      async (res) => ({ status: res.status, connection: res.headers.get('connection'), body: await res.text() }),
      (err: Error) => ({ status: 0, connection: null, body: String((err.cause as Error | undefined) ?? err) }),
    );

  // A burst as a balancer sends it: SIGTERM comes in the middle, with the first half in flight (or still
  // in the kernel's accept queue) and the second half sent once the process has taken the signal.
  const first = Array.from({ length: 50 }, ask);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const signalled = Date.now();
  server.proc.kill('SIGTERM');
  while (!server.output().includes('"msg":"shutting down"')) await new Promise((resolve) => setTimeout(resolve, 5));
  // From then on readiness fails at once, while the server still accepts and serves, saying it will close.
  const ready = await fetch(`${server.url}/readyz`);
  const second = Array.from({ length: 50 }, ask);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'shutting down' });
  expect(ready.headers.get('connection')).toBe('close');

  const answers = await Promise.all([...first, ...second]);
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(answers.slice(50).filter((a) => a.connection !== 'close')).toEqual([]);
  // Some of the first half were still in flight at SIGTERM: they too were told the connection closes.
  expect(answers.slice(0, 50).some((a) => a.connection === 'close')).toBe(true);

  const { code, at } = await exited;
  expect(code).toBe(0);
  // It waited out the delay before it stopped accepting; then nothing listens any more.
  expect(at - signalled).toBeGreaterThanOrEqual(delayMs);
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
});

test('SIGINT (Ctrl-C) skips the delay', async () => {
  const server = await spawnServer({ NODE_ENV: 'production', DATABASE_URL: database.url, SHUTDOWN_DELAY_MS: '5000' });
  const exited = exitOf(server);
  const signalled = Date.now();
  server.proc.kill('SIGINT');
  const { code, at } = await exited;
  expect(code).toBe(0);
  expect(at - signalled).toBeLessThan(3000);
});

test('a second signal during the delay ends it (SIGTERM, then an impatient Ctrl-C)', async () => {
  const server = await spawnServer({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    SHUTDOWN_DELAY_MS: '5000',
    LOG_LEVEL: 'info',
  });
  const exited = exitOf(server);
  const signalled = Date.now();
  server.proc.kill('SIGTERM');
  while (!server.output().includes('"msg":"shutting down"')) await new Promise((resolve) => setTimeout(resolve, 5));
  expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
  server.proc.kill('SIGINT');
  const { code, at } = await exited;
  expect(code).toBe(0);
  expect(at - signalled).toBeLessThan(3000);
});

test('SHUTDOWN_DELAY_MS: 3000 by default; not a whole number of milliseconds, or over 10 minutes, is refused at start', () => {
  expect(loadConfig({}, false).shutdownDelayMs).toBe(3000);
  expect(loadConfig({ SHUTDOWN_DELAY_MS: '0' }, false).shutdownDelayMs).toBe(0);
  for (const bad of ['soon', '-1', '1.5', '600001']) {
    expect(() => loadConfig({ SHUTDOWN_DELAY_MS: bad }, false)).toThrow(/SHUTDOWN_DELAY_MS/);
  }
});
