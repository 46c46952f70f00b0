import { createServer, type Server } from 'node:net';
import { useBuiltDist } from './helpers/build.js';
import { runToExit } from './helpers/run-to-exit.js';
import { freshDatabase } from './helpers/harness.js';
import { freePort, spawnServer } from './helpers/process.js';

// The real process (dist/server.js, built first): what an operator sees when it cannot start, and what
// stdout carries once it runs.
useBuiltDist();

let database: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  database = await freshDatabase();
});

afterAll(async () => {
  await database.drop();
});

/** Runs the server expecting it to stop by itself; returns its exit code and both streams. */
const runServerToExit = (env: NodeJS.ProcessEnv) =>
  runToExit('server.js', [], {
    ...process.env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    ...env,
  });

const stopped = (proc: import('node:child_process').ChildProcess) =>
  new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

describe('a process that cannot start says why in one line on stderr and exits 1', () => {
  let blocker: Server;
  let busyPort: number;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busyPort = (blocker.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  });

  test.each<[string, () => NodeJS.ProcessEnv, () => string]>([
    [
      'PORT in use',
      () => ({ NODE_ENV: 'test', PORT: String(busyPort) }),
      () => `roster: cannot listen on 127.0.0.1:${busyPort}: port in use`,
    ],
    [
      'METRICS_PORT in use',
      () => ({ NODE_ENV: 'test', PORT: '0', METRICS_PORT: String(busyPort) }),
      () => `roster: cannot listen on 127.0.0.1:${busyPort}: port in use`,
    ],
    [
      'HOST not on this machine',
      () => ({ NODE_ENV: 'test', PORT: '0', HOST: '192.0.2.1' }),
      () => 'roster: cannot listen on 192.0.2.1:0: address not available on this machine',
    ],
    [
      'production without BASE_URL',
      () => ({ NODE_ENV: 'production', PORT: '0' }),
      () =>
        'roster: BASE_URL is required when NODE_ENV=production: the public https origin, e.g. https://roster.example.com',
    ],
    [
      'a bad PORT',
      () => ({ NODE_ENV: 'test', PORT: 'eighty' }),
      () => 'roster: PORT must be a whole number from 0 to 65535, got "eighty"',
    ],
  ])(
    '%s',
    async (_name, env, line) => {
      const { code, stderr, stdout } = await runServerToExit(env());
      expect(code).toBe(1);
      expect(stderr).toBe(`${line()}\n`);
      for (const l of stdout.split('\n').filter(Boolean)) expect(() => JSON.parse(l)).not.toThrow();
    },
    60_000,
  );
});

test('in production stdout carries only JSON log lines, and no banner', async () => {
  const server = await spawnServer({ NODE_ENV: 'production', DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  } finally {
    const exited = stopped(server.proc);
    server.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  const lines = server.stdout().split('\n').filter(Boolean);
  expect(lines.map((l) => JSON.parse(l) as { msg: string }).map((l) => l.msg)).toEqual(
    expect.arrayContaining(['listening', 'request', 'shutting down']),
  );
  expect(server.output()).not.toContain('Roster is listening');
}, 30_000);

test('started with --no-deprecation (deprecation warnings muted, the flag read-only) it serves GraphQL', async () => {
  const server = await spawnServer({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    NODE_OPTIONS: '--no-deprecation',
  });
  try {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    // The GraphQL router, made at start where url.parse's check is settled, answers: 401 without a token.
    expect(res.status).toBe(401);
  } finally {
    const exited = stopped(server.proc);
    server.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  expect(server.output()).not.toMatch(/DeprecationWarning|TypeError/);
}, 30_000);

test('in development the banner goes to stderr: stdout stays JSON log lines', async () => {
  const fresh = await freshDatabase();
  try {
    const server = await spawnServer({ NODE_ENV: 'development', DATABASE_URL: fresh.url, LOG_LEVEL: 'info' });
    const exited = stopped(server.proc);
    server.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.output()).toContain('Demo data loaded');
    const lines = server.stdout().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  } finally {
    await fresh.drop();
  }
}, 30_000);

describe('METRICS_PORT', () => {
  test('set: /metrics only on its own port; the public port answers 404 for it; SIGTERM closes both', async () => {
    const metricsPort = await freePort();
    const server = await spawnServer({
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      METRICS_PORT: String(metricsPort),
    });
    const exited = stopped(server.proc);
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);

      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await metrics.text()).toMatch(
        /roster_http_requests_total\{route="\/healthz",operation="",status="200"\} 1/,
      );

      const other = await fetch(`http://127.0.0.1:${metricsPort}/graphql`);
      expect(other.status).toBe(404);
      expect(await other.json()).toEqual({
        errors: [{ message: 'Only /metrics is served on this port.', extensions: { code: 'NOT_FOUND' } }],
      });
    } finally {
      // fetch keeps its connection to the metrics port alive: shutdown must close it, not wait on it.
      server.proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  }, 30_000);

  test('unset: the public port serves /metrics, as before', async () => {
    const server = await spawnServer({ NODE_ENV: 'production', DATABASE_URL: database.url });
    try {
      const metrics = await fetch(`${server.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('roster_http_requests_total');
    } finally {
      const exited = stopped(server.proc);
      server.proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30_000);
});
