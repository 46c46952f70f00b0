import { loadConfig } from '../../src/config.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createStores } from '../../src/stores/stores.js';
import { useBuiltDist } from '../helpers/build.js';
import { freshDatabase } from '../helpers/harness.js';
import { holdRequest, type HeldRequest } from '../helpers/held-request.js';
import { until, within } from '../helpers/wait.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';

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

// A test that failed half way leaves its process behind, maybe in a ten-minute delay: end it.
const spawned: ServerProcess[] = [];
const spawn = async (env: NodeJS.ProcessEnv) => {
  const server = await spawnServer(env);
  spawned.push(server);
  return server;
};
afterEach(() => {
  for (const { proc } of spawned.splice(0))
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
});

afterAll(async () => {
  await db.destroy();
  await database.drop();
});

const exitOf = (server: ServerProcess) =>
  new Promise<{ code: number | null; at: number }>((resolve) =>
    server.proc.once('exit', (code) => resolve({ code, at: Date.now() })),
  );

async function appToken(email: string): Promise<string> {
  const stores = createStores(db);
  const owner = await stores.users.create({ email, name: email });
  return (await stores.apps.create({ ownerId: owner.id, name: email, redirectUris: ['https://t.example/cb'] }))
    .appToken;
}

const VIEWER = JSON.stringify({ query: '{ viewer { tokenKind } }' });
// As Apollo writes it, with its closing newline.
const VIEWER_ANSWER = `${JSON.stringify({ data: { viewer: { tokenKind: 'APP' } } })}\n`;

/** A /graphql request held in flight: the server has it, and cannot answer until the test releases it. */
async function heldRequest(server: ServerProcess, token: string): Promise<HeldRequest> {
  const held = holdRequest(
    `${server.url}/graphql`,
    { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    VIEWER,
  );
  await within(10_000, 'the server taking the request', held.started);
  return held;
}

/** Waits until the process has logged `msg` (it logs each step of a shutdown as it takes it). */
const logged = (server: ServerProcess, msg: string) =>
  until(() => server.output().includes(`"msg":"${msg}"`), `the log line "${msg}"`);

test('SIGTERM with a request in flight: readiness fails at once, the request is drained and answered 200, then exit 0', async () => {
  const token = await appToken('term@example.com');
  const delayMs = 1000;
  const server = await spawn({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    SHUTDOWN_DELAY_MS: String(delayMs),
  });
  const exited = exitOf(server);
  const held = await heldRequest(server, token);

  const signalled = Date.now();
  server.proc.kill('SIGTERM');
  await logged(server, 'shutting down');
  const ready = await fetch(`${server.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'shutting down' });

  // The delay over, it stops accepting and waits for the request it still has: the process stays up.
  await logged(server, 'draining in-flight requests');
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(delayMs);
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  expect(server.proc.exitCode).toBeNull();
  expect(held.isClosed()).toBe(false);

  held.release();
  const answer = await within(10_000, 'the held answer', held.answer);
  expect(answer.status).toBe(200);
  expect(answer.body).toBe(VIEWER_ANSWER);
  expect(answer.headers.connection).toBe('close');
  await within(10_000, 'the server closing the connection', held.closed);
  const { code, at } = await within(10_000, 'the exit', exited);
  expect(code).toBe(0);
  expect(at - signalled).toBeGreaterThanOrEqual(delayMs);
  expect(server.output()).toContain('"signal":"SIGTERM"');
  expect(server.output()).not.toContain('did not finish in time');
});

test('SIGTERM in the middle of a burst of 100 concurrent requests: every one is answered 200, then exit 0', async () => {
  const token = await appToken('burst@example.com');
  // Longer than the test: the delay ends when the test sends a second signal, not when the clock says so.
  const server = await spawn({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    SHUTDOWN_DELAY_MS: '600000',
    LOG_LEVEL: 'info',
  });
  const exited = exitOf(server);
  const ask = () =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: VIEWER,
    }).then(async (res) => ({ status: res.status, connection: res.headers.get('connection'), body: await res.text() }));

  // Fifty in flight when SIGTERM comes: the server has each, and none can finish before the test lets it.
  const before = await Promise.all(Array.from({ length: 50 }, () => heldRequest(server, token)));
  server.proc.kill('SIGTERM');
  await logged(server, 'shutting down');

  // During the delay readiness fails, while the server still accepts and serves, saying it will close.
  const ready = await fetch(`${server.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'shutting down' });
  expect(ready.headers.get('connection')).toBe('close');
  const during = await Promise.all(Array.from({ length: 25 }, () => heldRequest(server, token)));
  const served = await Promise.all(Array.from({ length: 25 }, ask));
  expect(served.filter((a) => a.status !== 200 || a.connection !== 'close' || a.body !== VIEWER_ANSWER)).toEqual([]);
  // Half of those in flight at SIGTERM finish during the delay: answered, told to close, and closed.
  const early = before.slice(0, 25);
  for (const held of early) held.release();
  const earlyAnswers = await within(10_000, 'the answers during the delay', Promise.all(early.map((h) => h.answer)));
  expect(earlyAnswers.filter((a) => a.status !== 200 || a.body !== VIEWER_ANSWER)).toEqual([]);
  expect(earlyAnswers.map((a) => a.headers.connection)).toEqual(early.map(() => 'close'));
  await within(10_000, 'the server closing those connections', Promise.all(early.map((h) => h.closed)));
  expect(server.proc.exitCode).toBeNull();

  // A second signal ends the delay: it stops accepting and drains the fifty still in flight.
  server.proc.kill('SIGTERM');
  await logged(server, 'draining in-flight requests');
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  const late = [...before.slice(25), ...during];
  expect(server.proc.exitCode).toBeNull();
  expect(late.filter((h) => h.isClosed())).toEqual([]);
  for (const held of late) held.release();
  const lateAnswers = await within(10_000, 'the drained answers', Promise.all(late.map((h) => h.answer)));
  expect(lateAnswers.filter((a) => a.status !== 200 || a.body !== VIEWER_ANSWER)).toEqual([]);
  expect(lateAnswers.map((a) => a.headers.connection)).toEqual(late.map(() => 'close'));
  await within(10_000, 'the server closing every connection', Promise.all(late.map((h) => h.closed)));
  const { code } = await within(10_000, 'the exit', exited);
  expect(code).toBe(0);
  expect(server.output()).not.toContain('did not finish in time');
}, 60_000);

// The longest delay there is: a process that waited it out would miss the bound by minutes, on any machine.
const FOREVER_MS = '600000';

test('SIGINT (Ctrl-C) skips the delay', async () => {
  const server = await spawn({ NODE_ENV: 'production', DATABASE_URL: database.url, SHUTDOWN_DELAY_MS: FOREVER_MS });
  const exited = exitOf(server);
  server.proc.kill('SIGINT');
  const { code } = await within(20_000, 'the exit after SIGINT', exited);
  expect(code).toBe(0);
});

test('a second signal during the delay ends it (SIGTERM, then an impatient Ctrl-C)', async () => {
  const server = await spawn({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    SHUTDOWN_DELAY_MS: FOREVER_MS,
    LOG_LEVEL: 'info',
  });
  const exited = exitOf(server);
  server.proc.kill('SIGTERM');
  await logged(server, 'shutting down');
  expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
  expect(server.proc.exitCode).toBeNull();
  server.proc.kill('SIGINT');
  const { code } = await within(20_000, 'the exit after the second signal', exited);
  expect(code).toBe(0);
});

test('SHUTDOWN_DELAY_MS: 3000 by default; not a whole number of milliseconds, or over 10 minutes, is refused at start', () => {
  expect(loadConfig({}, false).shutdownDelayMs).toBe(3000);
  expect(loadConfig({ SHUTDOWN_DELAY_MS: '0' }, false).shutdownDelayMs).toBe(0);
  for (const bad of ['soon', '-1', '1.5', '600001']) {
    expect(() => loadConfig({ SHUTDOWN_DELAY_MS: bad }, false)).toThrow(/SHUTDOWN_DELAY_MS/);
  }
});
