import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { distPath, useBuiltDist } from '../helpers/build.js';
import { cli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/harness.js';
import { createDb, type Db } from '../../src/stores/database.js';

let database: { url: string; drop(): Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  expect((await cli(database.url, ['migrate', '--json'])).json).toEqual({
    migrated: [
      '20261122000000_init',
      '20261122010000_rate_limits',
      '20261122020000_accounts',
      '20261122030000_auth_epoch',
      '20261122040000_sealed_oidc_payloads',
      '20261123000000_password_resets',
      '20261123010000_data_epoch',
      '20261125000000_app_edits_keep_answers',
      '20261126000000_event_location',
      '20261126010000_change_log',
      '20261127000000_webhooks',
      '20261128000000_change_notify',
      '20261129000000_audit_log',
      '20261130000000_client_token_epoch',
      '20261130010000_personal_tokens',
      '20261201000000_registrations_keep_answers',
      '20261202000000_refuse_truncate',
      '20261205000000_guard_change_log_and_epochs',
      '20261205010000_functions_ignore_temporary_tables',
      '20261206000000_user_writes_keep_answers',
    ],
  });
  db = createDb(database.url);
});
afterAll(async () => {
  await db.destroy();
  await database.drop();
});

const roster = (...args: string[]) => cli(database.url, args);

async function expectFailure(args: string[], message: RegExp, code = 1) {
  const res = await cli(database.url, args);
  expect(res.code).toBe(code);
  expect(res.stdout).toBe('');
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr).toMatch(/^roster: /);
  expect(res.stderr).toMatch(message);
  expect(res.stderr).not.toMatch(/\n\s+at /);
}

describe('migrate', () => {
  test('a second run applies nothing', async () => {
    expect((await roster('migrate', '--json')).json).toEqual({ migrated: [] });
  });
});

describe('user create', () => {
  test('prints the new user', async () => {
    const res = await roster(
      'user',
      'create',
      '--email',
      'Ivy@Example.com',
      '--name',
      'Ivy Ito',
      '--password',
      'long-enough',
      '--picture',
      'https://example.com/ivy.png',
      '--zoneinfo',
      'Asia/Tokyo',
      '--email-verified',
      '--json',
    );
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({
      email: 'Ivy@Example.com',
      name: 'Ivy Ito',
      email_verified: true,
      picture: 'https://example.com/ivy.png',
      zoneinfo: 'Asia/Tokyo',
      activation_state: 'active',
    });
    expect(res.json.uid).toMatch(/^u_/);
    const row = await db('users').where({ uid: res.json.uid }).first();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('long-enough');
  });

  test('--no-email makes a registrant without an address', async () => {
    const res = await roster(
      'user',
      'create',
      '--no-email',
      '--name',
      'Nobody Mail',
      '--activation-state',
      'pending',
      '--json',
    );
    expect(res.json).toMatchObject({ email: null, name: 'Nobody Mail', activation_state: 'pending' });
  });

  test('human output without --json', async () => {
    const res = await roster('user', 'create', '--email', 'human@example.com', '--name', 'Hu Man');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^created user u_\S+ \(human@example.com\)\n$/);
  });

  test.each([
    [['--name', 'No Email'], /--email is required/],
    [['--email', 'not-an-email', '--name', 'X'], /email must be an email address/],
    [['--email', 'ivy@example.com', '--name', 'Dup'], /a user with email ivy@example.com exists/],
    [['--email', 'z@example.com', '--name', 'Z', '--activation-state', 'asleep'], /activation state must be one of/],
    [['--email', 'z@example.com', '--name', 'Z', '--zoneinfo', 'Mars/Olympus'], /not an IANA time zone/],
    [['--email', 'z@example.com', '--name', 'Z', '--picture', 'javascript:alert(1)'], /absolute http\(s\) URL/],
    [['--email', 'z@example.com', '--name', 'Z', '--password', 'short'], /at least 8 characters/],
  ])('rejects %j', async (args, message) => {
    await expectFailure(['user', 'create', ...args, '--json'], message);
  });

  test('a missing required option is a usage error (exit 2)', async () => {
    await expectFailure(['user', 'create', '--email', 'q@example.com', '--json'], /--name/, 2);
  });
});

describe('user set-state', () => {
  test('sets the activation state by email or uid, and back', async () => {
    const made = await roster('user', 'create', '--email', 'sleepy@example.com', '--name', 'Sleepy', '--json');
    const uid = String(made.json.uid);
    const off = await roster('user', 'set-state', '--user', 'Sleepy@Example.com', '--state', 'deactivated', '--json');
    expect(off.code).toBe(0);
    expect(off.json).toMatchObject({ uid, activation_state: 'deactivated' });
    expect((await db('users').where({ uid }).first()).activation_state).toBe('deactivated');
    const on = await roster('user', 'set-state', '--user', uid, '--state', 'active');
    expect(on.stdout).toBe(`user ${uid} is active\n`);
  });

  test.each([
    [['--user', 'nobody@example.com', '--state', 'active'], /no user with email nobody@example.com/],
    [['--user', 'sleepy@example.com', '--state', 'asleep'], /activation state must be one of/],
  ])('rejects %j', async (args, message) => {
    await expectFailure(['user', 'set-state', ...args, '--json'], message);
  });
});

describe('events, registrations, apps, tokens, keys', () => {
  let ownerUid: string;
  beforeAll(async () => {
    ownerUid = String(
      (await roster('user', 'create', '--email', 'owner@example.com', '--name', 'Owen Owner', '--json')).json.uid,
    );
  });

  test('event create by email and by uid', async () => {
    const res = await roster(
      'event',
      'create',
      '--slug',
      'cli-conf',
      '--name',
      'CLI Conf',
      '--organizer',
      'owner@example.com',
      '--organizer',
      ownerUid,
      '--private',
      '--starts-at',
      '2027-03-01T09:00:00Z',
      '--ends-at',
      '2027-03-01T17:00:00Z',
      '--time-zone',
      'Europe/Paris',
      '--json',
    );
    expect(res.json).toEqual({
      slug: 'cli-conf',
      name: 'CLI Conf',
      visibility: 'private',
      starts_at: '2027-03-01T09:00:00.000Z',
      ends_at: '2027-03-01T17:00:00.000Z',
      time_zone: 'Europe/Paris',
      location: null,
      organizers: [ownerUid],
    });
  });

  test.each([
    [['--slug', 'Bad Slug', '--name', 'X', '--organizer', 'owner@example.com'], /slug must be lowercase/],
    [['--slug', 'cli-conf', '--name', 'X', '--organizer', 'owner@example.com'], /slug cli-conf exists/],
    [['--slug', 'x1', '--name', 'X', '--organizer', 'ghost@example.com'], /no user with email ghost@example.com/],
    [['--slug', 'x1', '--name', 'X', '--organizer', 'owner@example.com', '--starts-at', 'soon'], /ISO 8601/],
    [
      [
        '--slug',
        'x1',
        '--name',
        'X',
        '--organizer',
        'owner@example.com',
        '--starts-at',
        '2027-01-02',
        '--ends-at',
        '2027-01-01',
      ],
      /ends_at must not be before starts_at/,
    ],
  ])('event create rejects %j', async (args, message) => {
    await expectFailure(['event', 'create', ...args, '--json'], message);
  });

  test('registration create, once', async () => {
    const res = await roster('registration', 'create', '--event', 'cli-conf', '--user', 'ivy@example.com', '--json');
    expect(res.json).toMatchObject({ event: 'cli-conf' });
    expect(typeof res.json.id).toBe('string');
    await expectFailure(
      ['registration', 'create', '--event', 'cli-conf', '--user', 'ivy@example.com'],
      /already registered/,
    );
    await expectFailure(
      ['registration', 'create', '--event', 'nope', '--user', 'ivy@example.com'],
      /no event with slug nope/,
    );
    await expectFailure(
      ['registration', 'create', '--event', 'cli-conf', '--user', 'u_missing'],
      /no user with uid u_missing/,
    );
  });

  test('app create, rotate-token, token create, keys rotate', async () => {
    const app = await roster(
      'app',
      'create',
      '--owner',
      'owner@example.com',
      '--name',
      'Badge Printer',
      '--redirect-uri',
      'https://badges.example.com/cb',
      '--redirect-uri',
      'http://localhost:8080/cb',
      '--json',
    );
    expect(app.code).toBe(0);
    expect(app.json).toMatchObject({ name: 'Badge Printer', owner: ownerUid });
    expect(app.json.redirect_uris).toEqual(['https://badges.example.com/cb', 'http://localhost:8080/cb']);
    expect(app.json.app_token).toMatch(/^rst_app_/);
    expect(app.json.client_secret).toMatch(/^rst_cs_/);
    const clientId = String(app.json.client_id);

    const stored = await db('client_apps').where({ client_id: clientId }).first();
    expect(stored.client_secret_hash).toMatch(/^[0-9a-f]{64}$/);
    const before = await db('app_tokens').where({ app_id: stored.id }).pluck('token_hash');

    const rotated = await roster('app', 'rotate-token', '--client', clientId, '--json');
    expect(Object.keys(rotated.json)).toEqual(['app_token']);
    expect(rotated.json.app_token).not.toBe(app.json.app_token);
    const after = await db('app_tokens').where({ app_id: stored.id }).pluck('token_hash');
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);

    const token = await roster(
      'token',
      'create',
      '--user',
      'owner@example.com',
      '--client',
      clientId,
      '--scope',
      'openid email',
      '--json',
    );
    expect(token.code).toBe(0);
    expect(token.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid email' });
    expect(typeof token.json.access_token).toBe('string');

    const kid = await roster('keys', 'rotate', '--json');
    expect(Object.keys(kid.json)).toEqual(['kid', 'active_at']);
    expect(Date.parse(String(kid.json.active_at)) - Date.now()).toBeGreaterThan(60_000);
    expect(await db('signing_keys').where({ kid: kid.json.kid }).first()).toBeDefined();
  });

  test.each([
    [
      ['app', 'create', '--owner', 'owner@example.com', '--name', 'X', '--redirect-uri', 'ftp://x'],
      /absolute http\(s\) URL/,
    ],
    [['app', 'create', '--owner', 'owner@example.com', '--name', 'X', '--redirect-uri', 'https://x/#frag'], /fragment/],
    [['app', 'rotate-token', '--client', 'no-such-client'], /no app with client id no-such-client/],
    [['token', 'create', '--user', 'owner@example.com', '--client', 'no-such-client'], /no app with client id/],
    [['token', 'create', '--user', 'owner@example.com', '--client', 'x', '--scope', 'admin'], /unknown scope admin/],
  ])('rejects %j', async (args, message) => {
    await expectFailure([...args, '--json'], message);
  });

  test('app create refuses more than 10 redirect URIs, as the account pages do', async () => {
    const uris = Array.from({ length: 11 }, (_, i) => ['--redirect-uri', `https://many.example/cb${i}`]).flat();
    const create = ['app', 'create', '--owner', 'owner@example.com', '--name', 'Many', '--json'];
    await expectFailure([...create, ...uris], /^roster: at most 10 redirect URIs\n$/);
    expect(await db('client_apps').where({ name: 'Many' }).first()).toBeUndefined();
    // Ten, one of them repeated with blanks around it, are fine: repeats count once.
    const made = await roster(...create, ...uris.slice(0, 20), '--redirect-uri', ' https://many.example/cb0 ');
    expect(made.code).toBe(0);
    expect(made.json.redirect_uris).toHaveLength(10);
  });

  test('unknown commands and options are usage errors', async () => {
    await expectFailure(['frobnicate'], /unknown command 'frobnicate'/, 2);
    await expectFailure(['user', 'create', '--name', 'X', '--colour', 'red'], /unknown option '--colour'/, 2);
  });
});

describe('seed', () => {
  test('is idempotent: the app and its token are created once', async () => {
    const first = await roster('seed', '--json');
    expect(first.json).toMatchObject({ users: 32, events: 4, registrations: 50, client_id: 'roster-demo' });
    expect(first.json.app_token).toMatch(/^rst_app_/);
    const counts = async () => ({
      users: (await db('users').count({ n: '*' }))[0]!.n,
      registrations: (await db('registrations').count({ n: '*' }))[0]!.n,
      apps: (await db('client_apps').count({ n: '*' }))[0]!.n,
    });
    const before = await counts();
    const second = await roster('seed', '--json');
    expect(second.json.app_token).toBeUndefined();
    expect(await counts()).toEqual(before);
    const organizer = await db('users').where({ email_normalized: 'organizer@example.com' }).first();
    expect(organizer.password_hash).toMatch(/^scrypt\$/);
  });
});

describe('the built bin', () => {
  useBuiltDist();
  test('runs as a real process with --json and exit codes', async () => {
    const bin = distPath('cli/index.js');
    expect(existsSync(bin)).toBe(true);
    const exec = promisify(execFile);
    const env = { ...process.env, DATABASE_URL: database.url, NODE_ENV: 'test' };
    const ok = await exec('node', [bin, 'migrate', '--json'], { env });
    expect(JSON.parse(ok.stdout)).toEqual({ migrated: [] });
    const bad = await exec('node', [bin, 'registration', 'create', '--event', 'nope', '--user', 'x@example.com'], {
      env,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect((bad as { stderr: string }).stderr).toMatch(/^roster: no event with slug nope\n$/m);
  });
});
