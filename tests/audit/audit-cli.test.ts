import { writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';

// Every CLI write leaves one audit row, written in the command's own transaction; `audit list` streams them.
let database: { url: string; drop(): Promise<void> };
let receiver: Receiver;
const roster = (args: string[], stdin = '') => cli(database.url, args, stdin, { USER: 'ops-alice' });
const ok = async (...args: string[]) => {
  const res = await roster([...args, '--json']);
  if (res.code !== 0) throw new Error(`${args.join(' ')}: ${res.stderr}`);
  return res.json;
};

interface Row {
  action: string;
  outcome: string;
  actor: string;
  actor_type: string;
  subject: string | null;
  app: string | null;
  user: string | null;
  at: string;
  id: number;
}

async function list(...filters: string[]): Promise<Row[]> {
  const res = await roster(['audit', 'list', ...filters, '--json']);
  expect(res.code).toBe(0);
  return res.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
}

const secrets: string[] = [];

beforeAll(async () => {
  [database, receiver] = await Promise.all([freshDatabase(), startReceiver((_req, res) => res.writeHead(204).end())]);
});
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

describe('every CLI write is recorded', () => {
  it('records each write verb once, as the operator, with what it was done to', async () => {
    await ok('migrate');
    const ada = await ok('user', 'create', '--email', 'ada@example.com', '--name', 'Ada', '--password', 'pw-ada-12345');
    secrets.push('pw-ada-12345');
    await ok('user', 'create', '--email', 'bob@example.com', '--name', 'Bob');
    await ok('user', 'update', '--user', 'bob@example.com', '--name', 'Bobby');
    await ok('user', 'set-state', '--user', 'bob@example.com', '--state', 'pending');
    expect(
      (await roster(['user', 'set-password', '--user', 'ada@example.com', '--password-stdin'], 'pw-new-98765\n')).code,
    ).toBe(0);
    secrets.push('pw-new-98765');
    const link = await ok('user', 'reset-link', '--user', 'ada@example.com');
    secrets.push(new URL(link.url as string).searchParams.get('token')!.split('.')[1]!);
    await ok('event', 'create', '--slug', 'fair', '--name', 'Fair', '--organizer', 'ada@example.com');
    await ok('event', 'update', '--event', 'fair', '--name', 'Spring Fair');
    await ok('registration', 'create', '--event', 'fair', '--user', 'bob@example.com');
    await ok('registration', 'delete', '--event', 'fair', '--user', 'bob@example.com');
    const app = await ok(
      'app',
      'create',
      '--owner',
      'ada@example.com',
      '--name',
      'Printer',
      '--redirect-uri',
      'https://p.example/cb',
    );
    const client = app.client_id as string;
    secrets.push(app.client_secret as string, app.app_token as string);
    await ok('app', 'update', '--client', client, '--name', 'Printer 2');
    secrets.push((await ok('app', 'rotate-token', '--client', client)).app_token as string);
    secrets.push((await ok('app', 'rotate-secret', '--client', client)).client_secret as string);
    const hook = await ok('webhook', 'create', '--client', client, '--url', receiver.url);
    secrets.push(hook.secret as string);
    const hookId = String(hook.id);
    await ok('webhook', 'ping', hookId);
    await ok('webhook', 'enable', hookId);
    await ok('webhook', 'delete', hookId);
    const minted = await ok('token', 'create', '--user', 'ada@example.com', '--client', client);
    secrets.push(minted.access_token as string);
    await ok('token', 'revoke', '--user', 'ada@example.com', '--client', client);
    await ok('keys', 'rotate');
    const file = join(tmpdir(), `audit-import-${process.pid}.ndjson`);
    writeFileSync(file, '{"type": "user", "email": "cy@example.com", "name": "Cy"}\n');
    await ok('import', file);
    await ok('import', file, '--dry-run');
    rmSync(file);
    await ok('seed');
    await ok('event', 'delete', '--event', 'fair');
    await ok('app', 'delete', '--client', client);
    await ok('user', 'delete', '--user', 'bob@example.com');

    const rows = await list();
    expect(rows.map((r) => r.action)).toEqual([
      'database.migrated',
      'user.created',
      'user.created',
      'user.updated',
      'user.state_set',
      'user.password_set',
      'password_reset.link_issued',
      'event.created',
      'event.updated',
      'registration.created',
      'registration.deleted',
      'app.created',
      'app.updated',
      'app.token_rotated',
      'app.secret_rotated',
      'webhook.created',
      'webhook.pinged',
      'webhook.enabled',
      'webhook.deleted',
      'token.issued',
      'token.revoked',
      'keys.rotated',
      'data.imported',
      'data.seeded',
      'event.deleted',
      'app.deleted',
      'user.deleted',
    ]);
    for (const row of rows)
      expect(row).toMatchObject({ actor_type: 'operator', actor: 'cli:ops-alice', outcome: 'success' });
    expect(rows[1]).toMatchObject({ subject: ada.uid, user: ada.uid });
    expect(rows.find((r) => r.action === 'app.created')).toMatchObject({ app: client, user: ada.uid });
    expect(rows.find((r) => r.action === 'token.issued')).toMatchObject({ app: client, subject: ada.uid });
  });

  it('never keeps a password, a token, a secret or a reset link', async () => {
    const res = await roster(['audit', 'list', '--json']);
    expect(secrets.length).toBeGreaterThan(8);
    for (const secret of secrets) expect(res.stdout).not.toContain(secret);
  });

  it('a write that fails leaves no success row, only a failure row naming what was asked', async () => {
    const before = (await list()).length;
    // The second import line is bad: the first line's user is rolled back with the rest, and no success row stays.
    const file = join(tmpdir(), `audit-bad-${process.pid}.ndjson`);
    writeFileSync(file, '{"type": "user", "email": "dee@example.com", "name": "Dee"}\n{"type": "nonsense"}\n');
    expect((await roster(['import', file, '--json'])).code).toBe(1);
    rmSync(file);
    expect((await roster(['user', 'show', '--user', 'dee@example.com', '--json'])).code).toBe(1);
    expect((await roster(['app', 'delete', '--client', 'no-such-app', '--json'])).code).toBe(1);
    const after = (await list()).slice(before);
    expect(after.map((r) => [r.action, r.outcome, r.subject ?? r.app])).toEqual([
      ['data.imported', 'failure', file],
      ['app.deleted', 'failure', 'no-such-app'],
    ]);
  });
});

describe('roster audit list', () => {
  it('streams NDJSON, one object a line, filtered by --since, --user and --action', async () => {
    const all = await list();
    expect(all.length).toBeGreaterThan(20);
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => a - b));
    expect(await list('--action', 'app.created')).toEqual(all.filter((r) => r.action === 'app.created'));
    const ada = await list('--user', 'ada@example.com');
    expect(ada.length).toBeGreaterThan(3);
    expect(ada.every((r) => r.user !== null && r.user === all[1]!.user)).toBe(true);
    expect(await list('--since', '2999-01-01T00:00:00Z')).toEqual([]);
    expect(await list('--since', '2000-01-01')).toEqual(all);
    const cut = all[10]!.at;
    expect((await list('--since', cut)).every((r) => r.at >= cut)).toBe(true);
  });

  it('refuses a bad filter with one line and a non-zero exit code', async () => {
    for (const [args, message] of [
      [['--since', 'yesterday'], /^roster: --since must be an ISO 8601 time/],
      [['--since', '2026-13-45T99:00:00Z'], /^roster: --since must be an ISO 8601 time/],
      [['--action', 'app.exploded'], /^roster: --action must be one of /],
      [['--user', 'nobody@example.com'], /^roster: --user names no user/],
    ] as const) {
      const res = await roster(['audit', 'list', ...args, '--json']);
      expect(res.code).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('prints a line per row for people', async () => {
    const res = await roster(['audit', 'list', '--action', 'user.created']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n')[0]).toMatch(/^\d{4}-.*Z user\.created success by cli:ops-alice on /);
  });
});
