import { readFileSync } from 'node:fs';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { cli } from '../helpers/cli.js';
import { useSeededServer } from '../helpers/fixtures.js';

// The operator's verbs against the real database of a running server: deletes must end every token at once.
const t = useSeededServer();

const roster = (...args: string[]) => cli(t.server.config.databaseUrl, args);
const json = async (...args: string[]) => {
  const res = await roster(...args, '--json');
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(res.stdout.trim().split('\n')).toHaveLength(1); // exactly one JSON object
  return res.json;
};

async function expectFailure(args: string[], message: RegExp, code = 1) {
  const res = await roster(...args);
  expect(res.code).toBe(code);
  expect(res.stdout).toBe('');
  expect(res.stderr.trim().split('\n')).toHaveLength(1);
  expect(res.stderr).toMatch(/^roster: /);
  expect(res.stderr).toMatch(message);
}

const ask = async (token: string) =>
  (
    await fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
    })
  ).status;

let n = 0;
/** A fresh user with an app of their own; `token` is theirs at `app`. */
async function freshUser() {
  n += 1;
  const { users, apps } = t.server.stores;
  const user = await users.create({ email: `admin${n}@example.com`, name: `Admin ${n}` });
  const { app, appToken, clientSecret } = await apps.create({
    ownerId: user.id,
    name: `Admin app ${n}`,
    redirectUris: ['https://example.com/cb'],
  });
  const token = await userToken(user.uid, app.clientId);
  return { user, app, appToken, clientSecret, token };
}

const userToken = async (uid: string, clientId: string) =>
  (await mintAccessToken(t.server.provider, { accountId: uid, clientId, scope: 'openid' })).access_token;

const oidcRows = (column: 'account_id' | 'client_id', value: string) =>
  t.server
    .db('oidc_payloads')
    .where(column, value)
    .count({ n: '*' })
    .first()
    .then((r) => Number(r!.n));

describe('roster --version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  test('prints the package version, plain or as one JSON object', async () => {
    expect((await roster('--version')).stdout).toBe(`${version}\n`);
    expect(await json('--version')).toEqual({ version });
  });
});

describe('user', () => {
  test('list pages through every user once, in creation order', async () => {
    const all: string[] = await t.server.db('users').orderBy('id').pluck('uid');
    const seen: string[] = [];
    let after: string | null = null;
    // Bounded: a `next` that never runs out fails the comparison below instead of looping.
    let pages = 0;
    do {
      const page = await json('user', 'list', '--limit', '2', ...(after ? ['--after', after] : []));
      seen.push(...(page.users as { uid: string }[]).map((u) => u.uid));
      after = page.next as string | null;
    } while (after !== null && ++pages <= all.length);
    expect(seen).toEqual(all);
    const pending = await json('user', 'list', '--state', 'pending');
    expect((pending.users as { email: string }[]).map((u) => u.email)).toEqual(['pat@example.com']);
    const text = (await roster('user', 'list', '--limit', '2')).stdout;
    expect(text).toMatch(/^UID +EMAIL +NAME +STATE\n/);
    expect(text).toMatch(/\nmore: repeat with --after \d+\n$/);
  });

  test('list refuses a bad --limit or --after', async () => {
    for (const limit of ['0', '1001', 'ten', '-5']) {
      await expectFailure(['user', 'list', '--limit', limit], /^roster: --limit must be a whole number from 1 to 1000/);
    }
    await expectFailure(['user', 'list', '--after', 'abc'], /^roster: --after must be the 'next' value/);
    await expectFailure(['user', 'list', '--state', 'asleep'], /activation state must be one of/);
  });

  test('show prints the user with their apps and the events they organize', async () => {
    const shown = await json('user', 'show', '--user', 'org@example.com');
    expect(shown).toMatchObject({
      uid: t.fx.organizer.uid,
      email: 'Org@Example.com',
      apps: [t.fx.orgApp.clientId],
      organizer_of: ['public-meetup', 'private-retreat'],
      registrations: 0,
      has_password: false,
    });
    expect((await roster('user', 'show', '--user', 'org@example.com')).stdout).toMatch(/^uid +u_/);
    await expectFailure(['user', 'show', '--user', 'nobody@example.com'], /no user with email nobody@example.com/);
  });

  test('update changes only what is given; a new address is unverified and must be free', async () => {
    const user = await t.server.stores.users.create({
      email: 'upd@example.com',
      emailVerified: true,
      name: 'Up Date',
      zoneinfo: 'Europe/Paris',
    });
    const renamed = await json('user', 'update', '--user', user.uid, '--name', 'Renamed', '--no-zoneinfo');
    expect(renamed).toMatchObject({ name: 'Renamed', zoneinfo: null, email: 'upd@example.com', email_verified: true });
    const moved = await json('user', 'update', '--user', user.uid, '--email', 'moved@example.com');
    expect(moved).toMatchObject({ email: 'moved@example.com', email_verified: false, name: 'Renamed' });
    await expectFailure(['user', 'update', '--user', user.uid, '--email', 'ann@example.com'], /ann@example.com exists/);
    await expectFailure(['user', 'update', '--user', user.uid], /nothing to change/);
    await expectFailure(['user', 'update', '--user', user.uid, '--picture', 'ftp://x'], /^roster: --picture must be/);
    await expectFailure(['user', 'update', '--user', 'u_missing', '--name', 'X'], /no user with uid u_missing/);
    expect((await t.server.stores.users.findById(user.id))!.email).toBe('moved@example.com');
  });

  test('set-password stores a new hash and ends the user sessions', async () => {
    const { user } = await freshUser();
    const session = await t.server.stores.accountSessions.create(user.id, 60_000);
    const res = await cli(
      t.server.config.databaseUrl,
      ['user', 'set-password', '--user', user.uid, '--password-stdin', '--json'],
      'a new long password\n',
    );
    expect(res.json).toEqual({ uid: user.uid, password_set: true, sessions_ended: 1 });
    expect(await t.server.stores.accountSessions.userIdFor(session)).toBeUndefined();
    const row = (await t.server.stores.users.findById(user.id))!;
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    await expectFailure(['user', 'set-password', '--user', user.uid, '--password', 'short'], /at least 8/);
    await expectFailure(['user', 'set-password', '--user', user.uid], /--password or --password-stdin/);
  });

  test('delete ends every token that spoke for the user or their apps, at once', async () => {
    const victim = await freshUser();
    const bystander = await freshUser();
    // The victim's token at another user's app, and another user's token at the victim's app.
    const victimElsewhere = await userToken(victim.user.uid, bystander.app.clientId);
    const visitorAtVictimApp = await userToken(bystander.user.uid, victim.app.clientId);
    const session = await t.server.stores.accountSessions.create(victim.user.id, 60_000);
    await t.server.stores.registrations.create(t.fx.publicEvent.id, victim.user.id);
    await json('event', 'update', '--event', 'public-meetup', '--add-organizer', victim.user.uid);
    const ended = [victim.token, victim.appToken, victimElsewhere, visitorAtVictimApp];
    for (const token of [...ended, bystander.token]) expect(await ask(token)).toBe(200); // cached now

    const deleted = await json('user', 'delete', '--user', victim.user.email!);
    expect(deleted).toEqual({
      deleted: victim.user.uid,
      apps: [victim.app.clientId],
      registrations: 1,
      organizer_of: ['public-meetup'],
    });
    for (const token of ended) expect(await ask(token)).toBe(401);
    expect(await ask(bystander.token)).toBe(200);
    expect(await oidcRows('account_id', victim.user.uid)).toBe(0);
    expect(await oidcRows('client_id', victim.app.clientId)).toBe(0);
    expect(await t.server.stores.accountSessions.userIdFor(session)).toBeUndefined();
    expect(await t.server.db('client_apps').where({ owner_id: victim.user.id }).first()).toBeUndefined();
    const event = await json('event', 'show', '--event', 'public-meetup');
    expect(event.organizers).toEqual([t.fx.organizer.uid]);
    await expectFailure(['user', 'delete', '--user', victim.user.uid], /no user with uid/);
  });

  test("delete refuses an event's only organizer and leaves everything", async () => {
    await expectFailure(
      ['user', 'delete', '--user', t.fx.organizer.uid],
      /only organizer of public-meetup, private-retreat: add an organizer or delete the event first/,
    );
    expect(await ask(t.fx.tokens.organizerUser)).toBe(200);
    expect(await ask(t.fx.tokens.organizerApp)).toBe(200);
  });
});

describe('app', () => {
  test('list filters by owner and pages; show never prints a secret', async () => {
    const listed = await json('app', 'list', '--owner', 'other@example.com');
    expect(listed).toEqual({
      apps: [expect.objectContaining({ client_id: t.fx.otherApp.clientId, owner: t.fx.other.uid, suspended: false })],
      next: null,
    });
    const first = await json('app', 'list', '--limit', '1');
    expect(first.next).toEqual(expect.any(String));
    const second = await json('app', 'list', '--limit', '1', '--after', first.next as string);
    expect((second.apps as { client_id: string }[])[0]!.client_id).not.toBe(
      (first.apps as { client_id: string }[])[0]!.client_id,
    );
    const shown = await roster('app', 'show', '--client', t.fx.orgApp.clientId, '--json');
    expect(shown.json).toMatchObject({ name: 'Organizer Badge Printer', type: 'confidential' });
    expect(shown.stdout).not.toMatch(/rst_|secret/);
    await expectFailure(['app', 'show', '--client', 'nope'], /no app with client id nope/);
    await expectFailure(['app', 'list', '--owner', 'u_nobody'], /no user with uid u_nobody/);
  });

  test('update renames and edits redirect URIs, at most 10', async () => {
    const { app } = await freshUser();
    const client = ['--client', app.clientId];
    const added = await json('app', 'update', ...client, '--add-redirect-uri', 'https://two.example/cb');
    expect(added.redirect_uris).toEqual(['https://example.com/cb', 'https://two.example/cb']);
    const edited = await json(
      'app',
      'update',
      ...client,
      '--name',
      'Renamed app',
      '--remove-redirect-uri',
      'https://example.com/cb',
    );
    expect(edited).toMatchObject({ name: 'Renamed app', redirect_uris: ['https://two.example/cb'] });
    await expectFailure(['app', 'update', ...client, '--add-redirect-uri', 'https://x.example/#f'], /fragment/);
    const ten = Array.from({ length: 10 }, (_, i) => ['--redirect-uri', `https://r${i}.example/cb`]).flat();
    expect((await json('app', 'update', ...client, ...ten)).redirect_uris).toHaveLength(10);
    await expectFailure(['app', 'update', ...client, '--add-redirect-uri', 'https://r10.example/cb'], /at most 10/);
    await expectFailure(
      ['app', 'update', ...client, '--remove-redirect-uri', 'https://x.example/'],
      /is not a redirect/,
    );
    await expectFailure(['app', 'update', ...client], /nothing to change/);
    expect((await t.server.stores.apps.findByClientId(app.clientId))!.redirectUris).toHaveLength(10);
  });

  test('rotate-secret replaces the secret (shown once); a public app has none', async () => {
    const { app } = await freshUser();
    const rotated = await json('app', 'rotate-secret', '--client', app.clientId);
    expect(rotated.client_secret).toMatch(/^rst_cs_/);
    const pub = await t.server.stores.apps.create({
      ownerId: t.fx.other.id,
      name: 'Public',
      redirectUris: ['https://example.com/cb'],
      confidential: false,
    });
    await expectFailure(['app', 'rotate-secret', '--client', pub.app.clientId], /public app has no client secret/);
  });

  test('delete ends its app token and the user tokens issued to it, at once', async () => {
    const { app, appToken, token } = await freshUser();
    const visitor = await userToken(t.fx.other.uid, app.clientId);
    for (const bearer of [appToken, token, visitor]) expect(await ask(bearer)).toBe(200);
    expect(await json('app', 'delete', '--client', app.clientId)).toEqual({ deleted: app.clientId });
    for (const bearer of [appToken, token, visitor]) expect(await ask(bearer)).toBe(401);
    expect(await oidcRows('client_id', app.clientId)).toBe(0);
    expect(await ask(t.fx.tokens.otherUser)).toBe(200);
    await expectFailure(['app', 'delete', '--client', app.clientId], /no app with client id/);
  });
});

describe('token revoke', () => {
  test("ends the user's grants to one app, or to all, with their tokens", async () => {
    const { user, app, token } = await freshUser();
    const elsewhere = await userToken(user.uid, t.fx.otherApp.clientId);
    expect(await ask(token)).toBe(200);
    const one = await json('token', 'revoke', '--user', user.uid, '--client', app.clientId);
    expect(one).toEqual({ user: user.uid, client_id: app.clientId, revoked_grants: 1 });
    expect(await ask(token)).toBe(401);
    expect(await ask(elsewhere)).toBe(200);
    expect((await json('token', 'revoke', '--user', user.uid)).revoked_grants).toBe(1);
    expect(await ask(elsewhere)).toBe(401);
    await expectFailure(['token', 'revoke', '--user', user.uid, '--client', 'nope'], /no app with client id nope/);
  });

  test('revokes a leaked user token read from stdin, with its grant and every token under it', async () => {
    const { user, app, token, appToken } = await freshUser();
    // A second token under the same grant (as a refresh would issue), and one under another grant.
    const { grantId } = (await t.server.provider.AccessToken.find(token))!;
    const client = (await t.server.provider.Client.find(app.clientId))!;
    const sibling = await new t.server.provider.AccessToken({
      accountId: user.uid,
      client,
      grantId,
      scope: 'openid',
      gty: 'refresh_token',
    }).save();
    const otherGrant = await userToken(user.uid, app.clientId);
    const elsewhere = await userToken(user.uid, t.fx.otherApp.clientId);
    expect(await ask(token)).toBe(200);
    const res = await cli(t.server.config.databaseUrl, ['token', 'revoke', '--token-stdin', '--json'], `${token}\n`);
    expect(res.stderr).toBe('');
    expect(res.json).toEqual({ user: user.uid, client_id: app.clientId, revoked_grants: 1 });
    expect(await ask(token)).toBe(401);
    expect(await ask(sibling)).toBe(401); // same grant
    expect(await ask(otherGrant)).toBe(200); // the user's other grant at the app stays
    expect(await ask(elsewhere)).toBe(200); // another app's grant stays
    // Twice, unknown, an app token, or with --user: each refused in one line.
    const again = await cli(t.server.config.databaseUrl, ['token', 'revoke', '--token-stdin'], token);
    expect([again.code, again.stderr]).toEqual([
      1,
      'roster: no live user token matches: unknown, expired or already revoked\n',
    ]);
    const app1 = await cli(t.server.config.databaseUrl, ['token', 'revoke', '--token-stdin'], appToken);
    expect(app1.code).toBe(1);
    expect(app1.stderr).toMatch(
      /^roster: --token is an app token: replace it with `roster app rotate-token --client ID`\n$/,
    );
    expect(await ask(appToken)).toBe(200);
    await expectFailure(['token', 'revoke', '--token-stdin', '--user', user.uid], /one of them/);
    await expectFailure(['token', 'revoke'], /one of them/);
  });
});

describe('event', () => {
  test('list filters by organizer; show counts registrations', async () => {
    const listed = await json('event', 'list', '--organizer', t.fx.organizer.email!);
    expect((listed.events as { slug: string }[]).map((e) => e.slug)).toEqual(['public-meetup', 'private-retreat']);
    expect((await json('event', 'list', '--organizer', 'other@example.com')).events).toEqual([]);
    expect((await roster('event', 'list', '--organizer', 'other@example.com')).stdout).toBe('none\n');
    const shown = await json('event', 'show', '--event', 'private-retreat');
    expect(shown).toMatchObject({ visibility: 'private', organizers: [t.fx.organizer.uid], registrations: 1 });
    await expectFailure(['event', 'show', '--event', 'no-such'], /no event with slug no-such/);
  });

  test('update changes fields and organizers, never to none', async () => {
    await json('event', 'create', '--slug', 'upd-event', '--name', 'Upd', '--organizer', t.fx.other.uid);
    const updated = await json(
      'event',
      'update',
      '--event',
      'upd-event',
      '--private',
      '--starts-at',
      '2027-03-01T09:00:00Z',
      '--add-organizer',
      'org@example.com',
      '--remove-organizer',
      t.fx.other.uid,
    );
    expect(updated).toMatchObject({
      visibility: 'private',
      starts_at: '2027-03-01T09:00:00.000Z',
      organizers: [t.fx.organizer.uid],
    });
    await expectFailure(
      ['event', 'update', '--event', 'upd-event', '--remove-organizer', t.fx.organizer.uid],
      /without an organizer/,
    );
    await expectFailure(
      ['event', 'update', '--event', 'upd-event', '--remove-organizer', t.fx.other.uid],
      /not an organizer/,
    );
    await expectFailure(
      ['event', 'update', '--event', 'upd-event', '--ends-at', '2027-01-01T00:00:00Z'],
      /ends_at must not be before/,
    );
    await expectFailure(['event', 'update', '--event', 'upd-event'], /nothing to change/);
    expect((await json('event', 'update', '--event', 'upd-event', '--no-starts-at')).starts_at).toBeNull();
  });

  test('delete takes its registrations and organizer links, and only those', async () => {
    await json('event', 'create', '--slug', 'doomed', '--name', 'Doomed', '--organizer', t.fx.other.uid);
    await json('registration', 'create', '--event', 'doomed', '--user', 'ann@example.com');
    const { id } = (await t.server.stores.events.findBySlug('doomed'))!;
    expect(await json('event', 'delete', '--event', 'doomed')).toEqual({
      deleted: 'doomed',
      registrations: 1,
      organizers: [t.fx.other.uid],
    });
    expect(await t.server.db('registrations').where({ event_id: id }).first()).toBeUndefined();
    expect(await t.server.db('event_organizers').where({ event_id: id }).first()).toBeUndefined();
    expect(await t.server.stores.users.findByEmail('ann@example.com')).toBeDefined();
    expect(await ask(t.fx.tokens.otherUser)).toBe(200);
    await expectFailure(['event', 'delete', '--event', 'doomed'], /no event with slug doomed/);
  });
});

describe('registration', () => {
  test('list pages through an event, delete unregisters once', async () => {
    const first = await json('registration', 'list', '--event', 'public-meetup', '--limit', '3');
    expect(first.registrations).toHaveLength(3);
    const rest = await json('registration', 'list', '--event', 'public-meetup', '--after', first.next as string);
    expect(rest.next).toBeNull();
    const emails = [...(first.registrations as { email: string }[]), ...(rest.registrations as { email: string }[])];
    expect(emails.map((r) => r.email)).toEqual(t.fx.registrants.map((u) => u.email));
    expect(await json('registration', 'delete', '--event', 'public-meetup', '--user', 'pat@example.com')).toEqual({
      deleted: true,
      event: 'public-meetup',
      user: t.fx.registrants[1]!.uid,
    });
    await expectFailure(
      ['registration', 'delete', '--event', 'public-meetup', '--user', 'pat@example.com'],
      /pat@example.com is not registered for public-meetup/,
    );
    await expectFailure(['registration', 'list', '--event', 'Bad Slug'], /^roster: --event must be lowercase/);
    await expectFailure(['registration', 'list'], /required option '--event <slug>'/, 2);
  });
});

describe('keys list', () => {
  test('shows which key signs and which comes next, never a private key', async () => {
    const before = await json('keys', 'list');
    expect(before.keys).toEqual([expect.objectContaining({ kid: 'initial', status: 'signing', signs_from: null })]);
    const { kid } = await json('keys', 'rotate');
    const res = await roster('keys', 'list', '--json');
    expect(res.json.keys).toEqual([
      expect.objectContaining({ kid, status: 'next', signs_from: expect.any(String) }),
      expect.objectContaining({ kid: 'initial', status: 'signing' }),
    ]);
    expect(res.stdout).not.toMatch(/"d"|"p"|"q"/);
  });
});
