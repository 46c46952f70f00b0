import { sha256 } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { appCreateArgs, cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// One-time secrets thrown away: every command that shows a secret once prints it without --json too,
// clearly labelled, so an operator who forgot --json has not lost it. Each printed value is checked
// against the hash that is stored: it is the real secret, not a placeholder.

const database = useMigratedDatabase();
const roster = (...args: string[]) => cli(database.url, args);

let owner: UserRow;
beforeAll(async () => {
  const res = await roster('user', 'create', '--email', 'secrets-owner@example.com', '--name', 'Sam Secret', '--json');
  owner = { uid: res.json.uid } as UserRow;
});

/** The value printed after `label (shown once): `, on a line of its own. */
function labelled(stdout: string, label: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label} (shown once): `));
  return line?.slice(`${label} (shown once): `.length);
}

const secretHash = async (clientId: string) =>
  (await database.db('client_apps').where({ client_id: clientId }).first()).client_secret_hash as string | null;
const tokenHashes = async (clientId: string) =>
  (
    await database
      .db('app_tokens')
      .join('client_apps', 'client_apps.id', 'app_tokens.app_id')
      .where('client_apps.client_id', clientId)
      .select('app_tokens.token_hash')
  ).map((r: { token_hash: string }) => r.token_hash);

describe('app create without --json', () => {
  test('prints the client id, the client secret and the app token, each labelled', async () => {
    const res = await roster(...appCreateArgs(owner.uid, 'Badge Printer', 'https://badges.example/cb'));
    expect(res.code).toBe(0);
    const clientId = /^created app (\S+)/.exec(res.stdout)?.[1];
    expect(clientId).toBeDefined();
    const secret = labelled(res.stdout, 'client secret');
    const token = labelled(res.stdout, 'app token');
    expect(secret).toMatch(/^rst_cs_\S+$/);
    expect(token).toMatch(/^rst_app_\S+$/);
    expect(sha256(secret!)).toBe(await secretHash(clientId!));
    expect(await tokenHashes(clientId!)).toEqual([sha256(token!)]);
  });

  test('a public app: the app token, and a line saying there is no secret', async () => {
    const res = await roster(...appCreateArgs(owner.uid, 'Kiosk', 'http://127.0.0.1:3000/cb', '--public'));
    expect(res.code).toBe(0);
    const clientId = /^created app (\S+)/.exec(res.stdout)![1]!;
    expect(labelled(res.stdout, 'client secret')).toBeUndefined();
    expect(res.stdout).toMatch(/^client secret: none \(a public client signs in with PKCE\)$/m);
    expect(await tokenHashes(clientId)).toEqual([sha256(labelled(res.stdout, 'app token')!)]);
  });
});

describe('rotations without --json', () => {
  let clientId: string;
  beforeAll(async () => {
    const res = await roster(...appCreateArgs(owner.uid, 'Rotated', 'https://rotated.example/cb', '--json'));
    clientId = res.json.client_id as string;
  });

  test('rotate-token prints the new app token', async () => {
    const res = await roster('app', 'rotate-token', '--client', clientId);
    expect(res.code).toBe(0);
    const token = labelled(res.stdout, 'new app token');
    expect(await tokenHashes(clientId)).toEqual([sha256(token!)]);
  });

  test('rotate-secret prints the new client secret', async () => {
    const res = await roster('app', 'rotate-secret', '--client', clientId);
    expect(res.code).toBe(0);
    const secret = labelled(res.stdout, 'new client secret');
    expect(sha256(secret!)).toBe(await secretHash(clientId));
  });
});

describe('seed without --json', () => {
  test('prints the demo app’s client secret and app token on the run that makes them; then says so', async () => {
    const res = await roster('seed');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^demo data loaded: \d+ users, \d+ events, \d+ registrations$/m);
    expect(res.stdout).toMatch(/^demo app roster-demo$/m);
    const secret = labelled(res.stdout, 'client secret');
    const token = labelled(res.stdout, 'app token');
    expect(sha256(secret!)).toBe(await secretHash('roster-demo'));
    expect(await tokenHashes('roster-demo')).toEqual([sha256(token!)]);
    expect(res.stdout).toMatch(/^organizer: organizer@example.com \(password roster-demo\)$/m);

    const again = await roster('seed');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^demo data already loaded/);
    expect(again.stdout).not.toMatch(/shown once/);
  });
});

describe('the other commands that show a secret once', () => {
  test('token create prints the access token alone (for TOKEN=$(roster token create ...))', async () => {
    const res = await roster('token', 'create', '--user', 'organizer@example.com', '--client', 'roster-demo');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^\S{20,}\n$/);
  });

  test('user reset-link prints the link', async () => {
    const res = await roster('user', 'reset-link', '--user', owner.uid);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^http:\/\/localhost:4000\/\S+\n\(works once, until .+\)\n$/);
  });
});
