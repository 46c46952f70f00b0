import { sha256 } from '../../src/lib/secrets.js';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// `roster pat create | list | revoke`, with durations in s, m, h and d, against a real
// database; the printed token is the one whose hash is kept, and every refusal is one line and exit 1.
const database = useMigratedDatabase();
const roster = (...args: string[]) => cli(database.url, args);

let uid: string;
beforeAll(async () => {
  const res = await roster('user', 'create', '--email', 'pat-cli@example.com', '--name', 'Cli Pat', '--json');
  uid = String(res.json.uid);
});

test.each([
  ['30d', 30 * 86_400],
  ['12h', 12 * 3600],
  ['90m', 90 * 60],
  ['3600s', 3600],
])(
  'create --expires-in %s prints { token, id, expires_at } once; the token is the one kept',
  async (duration, seconds) => {
    const before = Date.now();
    const res = await roster(
      'pat',
      'create',
      '--user',
      uid,
      '--name',
      `cli ${duration}`,
      '--scope',
      'openid email',
      '--expires-in',
      duration,
      '--json',
    );
    expect(res.code).toBe(0);
    expect(Object.keys(res.json).sort()).toEqual(['expires_at', 'id', 'token']);
    const token = String(res.json.token);
    expect(token).toMatch(/^rst_pat_/);
    const row = await database.db('personal_tokens').where({ id: res.json.id }).first();
    expect(row.token_hash).toBe(sha256(token));
    expect(row.scopes).toBe('openid email');
    const expiresAt = Date.parse(String(res.json.expires_at));
    expect(expiresAt).toBeGreaterThanOrEqual(before + seconds * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + seconds * 1000 + 1000);
  },
);

test('without --json the token is printed once, labelled; list shows every token but never a value', async () => {
  const res = await roster('pat', 'create', '--user', 'pat-cli@example.com', '--name', 'labelled');
  expect(res.code).toBe(0);
  const token = /^token \(shown once\): (rst_pat_\S+)$/m.exec(res.stdout)?.[1];
  expect(token).toBeDefined();
  const list = await roster('pat', 'list', '--user', uid, '--json');
  expect(list.code).toBe(0);
  const tokens = list.json.tokens as { name: string; scopes: string[]; last_used_at: string | null }[];
  expect(tokens.map((t) => t.name)).toContain('labelled');
  expect(tokens.find((t) => t.name === 'labelled')).toMatchObject({ scopes: ['openid'], last_used_at: null });
  expect(list.stdout).not.toContain('rst_pat_');
  const human = await roster('pat', 'list', '--user', uid);
  expect(human.stdout).toContain('labelled');
  expect(human.stdout).not.toContain('rst_pat_');
});

test('revoke deletes it, and the audit trail has both, by the operator', async () => {
  const made = await roster('pat', 'create', '--user', uid, '--name', 'to revoke', '--json');
  const res = await roster('pat', 'revoke', String(made.json.id), '--json');
  expect(res.code).toBe(0);
  expect(res.json).toEqual({ id: made.json.id, revoked: true });
  expect(await database.db('personal_tokens').where({ id: made.json.id }).first()).toBeUndefined();
  const again = await roster('pat', 'revoke', String(made.json.id));
  expect(again.code).toBe(1);
  expect(again.stderr.trim().split('\n')).toHaveLength(1);
  const rows = await database.db('audit_log').where({ subject: 'to revoke' }).orderBy('id').pluck('action');
  expect(rows).toEqual(['personal_token.created', 'personal_token.revoked']);
});

test.each([
  [['--expires-in', '366d'], 'from 1 minute to 365 days'],
  [['--expires-in', '30s'], 'from 1 minute to 365 days'],
  [['--expires-in', '1y'], 'a whole number and a unit'],
  [['--expires-in', '-5d'], 'a whole number and a unit'],
  [['--scope', 'openid admin'], 'unknown scope'],
  [['--scope', ' '], 'at least one scope'],
  [['--name', 'bell\u0007'], 'name'],
])('create %j is refused on one line, exit 1, nothing stored', async (args, reason) => {
  const before = await database.db('personal_tokens').count({ n: '*' }).first();
  const res = await roster('pat', 'create', '--user', uid, '--name', 'refused', ...args);
  expect(res.code).toBe(1);
  expect(res.stderr).toContain(reason);
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(await database.db('personal_tokens').count({ n: '*' }).first()).toEqual(before);
});

test('an unknown user, a deactivated one, or an id that is no number is refused', async () => {
  expect((await roster('pat', 'create', '--user', 'nobody@example.com', '--name', 'x')).code).toBe(1);
  await roster('user', 'set-state', '--user', uid, '--state', 'deactivated');
  const res = await roster('pat', 'create', '--user', uid, '--name', 'while away');
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('only an active user');
  await roster('user', 'set-state', '--user', uid, '--state', 'active');
  const bad = await roster('pat', 'revoke', '12abc');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('ids are whole numbers');
});
