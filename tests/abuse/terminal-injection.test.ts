import type { UserRow } from '../../src/stores/types.js';
import { signedInUser } from '../helpers/account-session.js';
import { appCreateArgs, cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { ndjson } from '../helpers/ndjson.js';

// Terminal injection into the operator's CLI: names and redirect URIs carrying control characters (ESC
// sequences, NUL, DEL, C1) or text-direction controls are refused at every entry (account pages, CLI,
// import); what is stored already is printed escaped and truncated in human mode, and exact in --json.

/** Retitles the terminal, erases the line and prints a forged row in its place. */
const FORGED = '\u001b]0;pwned\u0007\u001b[2K\rFORGED';
const FORGED_SHOWN = '\\x1b]0;pwned\\x07\\x1b[2K\\x0dFORGED';

/** [what, a name carrying it, the code point the refusal names]. */
const HOSTILE: [string, string, string][] = [
  ['an ESC sequence that retitles the terminal', `Badges ${FORGED}`, 'U+001B'],
  ['a bidi override', 'Invoice \u202Egpj.exe', 'U+202E'],
  ['a bidi embedding', 'App \u202Bx', 'U+202B'],
  ['a bidi isolate', 'App \u2066x\u2069', 'U+2066'],
  ['an Arabic letter mark', 'App \u061Cx', 'U+061C'],
  ['a right-to-left mark', 'App\u200F x', 'U+200F'],
  ['NUL', 'App\u0000Name', 'U+0000'],
  ['DEL', 'App\u007FName', 'U+007F'],
  ['a C1 control sequence introducer', 'App\u009B2K', 'U+009B'],
  ['a line separator', 'App\u2028Name', 'U+2028'],
  ['a paragraph separator', 'App\u2029Name', 'U+2029'],
  ['a carriage return', 'App\rFORGED', 'U+000D'],
  ['a tab', 'App\tName', 'U+0009'],
];

/** Any byte a terminal would act on, or text-direction control, except the line breaks between lines. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_UNSAFE = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/u;
const REFUSAL = /must not contain control or text-direction characters/;

let server: TestServer;
let owner: UserRow;
let n = 0;

beforeAll(async () => {
  server = await startServer();
  owner = await server.stores.users.create({ email: 'operator-owner@example.com', name: 'Olga Owner' });
});
afterAll(() => server?.close());

const roster = (...args: string[]) => cli(server.config.databaseUrl, args);
const stdinRoster = (stdin: string, ...args: string[]) => cli(server.config.databaseUrl, args, stdin);
const alertOf = (text: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(text)?.[1];

/** A refusal on stderr: one line, nothing raw in it, nothing on stdout. */
function expectOneLineRefusal(res: { code: number; stdout: string; stderr: string }, message: RegExp) {
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(res.stderr).not.toMatch(RAW_UNSAFE);
  expect(res.stderr).toMatch(message);
}

describe('the account pages refuse them', () => {
  test.each(HOSTILE)('an app name with %s', async (_what, name, codePoint) => {
    const { user, session } = await signedInUser(server, 'Mallory');
    const refused = await session.post('/account/apps', {
      name,
      redirect_uris: 'https://app.example/cb',
      type: 'confidential',
    });
    expect(refused.status).toBe(400);
    expect(alertOf(refused.text)).toBe(
      `Name must not contain control or text-direction characters (found ${codePoint}).`,
    );
    expect(await server.stores.apps.listByOwner(user.id)).toEqual([]);
  });

  test.each(HOSTILE)('a redirect URI with %s, at registration and when edited', async (_what, name, codePoint) => {
    const { user, session } = await signedInUser(server, 'Mallory');
    const uri = `https://app.example/cb?state=${name}`;
    const refused = await session.post('/account/apps', { name: 'Plain', redirect_uris: uri, type: 'public' });
    expect(refused.status).toBe(400);
    expect(alertOf(refused.text)).toBe(
      `Redirect URI must not contain control or text-direction characters (found ${codePoint}).`,
    );
    expect(await server.stores.apps.listByOwner(user.id)).toEqual([]);

    const { app } = await server.stores.apps.create({
      ownerId: user.id,
      name: 'Kept',
      redirectUris: ['https://kept.example/cb'],
    });
    const edited = await session.post(`/account/apps/${app.id}/edit`, { redirect_uris: uri });
    expect(edited.status).toBe(400);
    expect(alertOf(edited.text)).toMatch(REFUSAL);
    expect((await server.stores.apps.findByClientId(app.clientId))!.redirectUris).toEqual(['https://kept.example/cb']);
  });
});

describe('the CLI refuses them, in one escaped line', () => {
  test.each(HOSTILE)('app create --name with %s', async (_what, name, codePoint) => {
    const res = await roster(...appCreateArgs(owner.uid, name, 'https://app.example/cb'));
    expectOneLineRefusal(
      res,
      new RegExp(`^roster: --name ${REFUSAL.source} \\(found ${codePoint.replace('+', '\\+')}\\)`),
    );
    expect(await server.stores.apps.listByOwner(owner.id)).toEqual([]);
  });

  test('app create and update --redirect-uri with an ESC sequence', async () => {
    const uri = `https://app.example/cb?x=${FORGED}`;
    const created = await roster(...appCreateArgs(owner.uid, 'N', uri));
    expectOneLineRefusal(created, /^roster: --redirect-uri must not contain control or text-direction characters/);

    const { app } = await server.stores.apps.create({
      ownerId: owner.id,
      name: 'Kept',
      redirectUris: ['https://k.example/cb'],
    });
    const added = await roster('app', 'update', '--client', app.clientId, '--add-redirect-uri', uri);
    expectOneLineRefusal(added, /must not contain control or text-direction characters/);
    const renamed = await roster('app', 'update', '--client', app.clientId, '--name', `Kept ${FORGED}`);
    expectOneLineRefusal(renamed, /^roster: --name must not contain control or text-direction characters/);
    expect((await server.stores.apps.findByClientId(app.clientId))!).toMatchObject({
      name: 'Kept',
      redirectUris: ['https://k.example/cb'],
    });
    await server.stores.apps.delete(app.id);
  });

  test('user and event names', async () => {
    n += 1;
    expectOneLineRefusal(
      await roster('user', 'create', '--email', `u${n}@example.com`, '--name', `Eve ${FORGED}`),
      /^roster: --name must not contain control or text-direction characters \(found U\+001B\)/,
    );
    expectOneLineRefusal(
      await roster('user', 'update', '--user', owner.uid, '--name', 'Olga \u202Eregnuow'),
      /^roster: --name must not contain control or text-direction characters \(found U\+202E\)/,
    );
    expectOneLineRefusal(
      await roster('event', 'create', '--slug', `ev-${n}`, '--name', `Gala\u0000`, '--organizer', owner.uid),
      /^roster: --name must not contain control or text-direction characters \(found U\+0000\)/,
    );
    expectOneLineRefusal(
      await roster('user', 'create', '--email', `esc\u001b[2K${n}@example.com`, '--name', 'Esc'),
      /^roster: --email must not contain control or text-direction characters/,
    );
    expect(await server.stores.users.findByKey(`u${n}@example.com`)).toBeUndefined();
    expect((await server.stores.users.findById(owner.id))!.name).toBe('Olga Owner');
  });
});

describe('the NDJSON import refuses them', () => {
  test.each<[string, object, RegExp]>([
    [
      'a user name',
      { type: 'user', uid: 'u_forged', name: `Eve ${FORGED}` },
      /^roster: line 1: name must not contain control or text-direction characters \(found U\+001B\)\n$/,
    ],
    [
      'an event name',
      { type: 'event', slug: 'spoofed', name: 'Gala \u2066x\u2069', organizers: ['operator-owner@example.com'] },
      /^roster: line 1: name must not contain control or text-direction characters \(found U\+2066\)\n$/,
    ],
    [
      'an email address',
      { type: 'user', email: 'a\u009b2K@example.com', name: 'C1' },
      /^roster: line 1: email must not contain control or text-direction characters \(found U\+009B\)\n$/,
    ],
    [
      'a picture URL',
      { type: 'user', uid: 'u_pic', name: 'Pic', picture: 'https://example.com/\u001b[2J.png' },
      /^roster: line 1: picture must not contain control or text-direction characters \(found U\+001B\)\n$/,
    ],
  ])('%s', async (_what, record, message) => {
    const res = await stdinRoster(ndjson(record), 'import', '-');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(await server.stores.users.findByKey('u_forged')).toBeUndefined();
  });
});

describe('what is stored already is printed escaped and truncated in human mode', () => {
  let victim: UserRow;
  let clientId: string;
  let longClientId: string;
  // As long as the columns take: a user's name 500 characters, a redirect URI 2000.
  const LONG_NAME = 'L'.repeat(500);
  const LONG_URI = `https://long.example/${'N'.repeat(1979)}`;

  beforeAll(async () => {
    // Written before the rule existed: straight into the stores, which do not validate.
    victim = await server.stores.users.create({ email: 'stored@example.com', name: `Stored ${FORGED}` });
    const made = await server.stores.apps.create({
      ownerId: victim.id,
      name: FORGED,
      redirectUris: ['https://app.example/cb?\u001b[2K', `https://app.example/\u202Efdp.exe`],
    });
    clientId = made.app.clientId;
    longClientId = (await server.stores.apps.create({ ownerId: victim.id, name: 'Plain', redirectUris: [LONG_URI] }))
      .app.clientId;
    await server.stores.users.create({ email: 'long@example.com', name: LONG_NAME });
    const event = await server.stores.events.create({
      slug: 'stored-gala',
      name: `Gala \u202Eevil\u009B2J`,
      organizerIds: [victim.id],
    });
    await server.stores.registrations.create(event.id, victim.id);
  });

  test('app list: no row erased, none forged, the terminal not retitled', async () => {
    const res = await roster('app', 'list', '--owner', victim.uid);
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3); // the header and the two apps: nothing forged
    expect(lines[1]).toContain(clientId);
    expect(lines[1]).toContain(FORGED_SHOWN);
    expect(lines[2]).toContain(longClientId);
  });

  test('long values: their first 199 characters and an ellipsis', async () => {
    const shown = await roster('app', 'show', '--client', longClientId);
    expect(shown.code).toBe(0);
    const uriLine = shown.stdout.split('\n').find((l) => l.startsWith('redirect_uris'))!;
    expect(uriLine).toMatch(new RegExp(`  ${LONG_URI.slice(0, 199)}…$`));
    expect(uriLine.length).toBeLessThan(400);

    const users = await roster('user', 'list', '--limit', '1000');
    const row = users.stdout.split('\n').find((l) => l.includes('long@example.com'))!;
    expect(row).toContain(`${'L'.repeat(199)}…`);
    expect(row).not.toContain('L'.repeat(200));
    expect(users.stdout.split('\n').every((l) => l.length < 600)).toBe(true);
  });

  test('app show: the name and each redirect URI escaped', async () => {
    const res = await roster('app', 'show', '--client', clientId);
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    expect(res.stdout).toContain(FORGED_SHOWN);
    expect(res.stdout).toContain('https://app.example/cb?\\x1b[2K');
    expect(res.stdout).toContain('https://app.example/\\u202efdp.exe');
  });

  test.each<[string, string[], string]>([
    ['user list', ['user', 'list', '--limit', '1000'], 'Stored \\x1b]0;pwned'],
    ['user show', ['user', 'show', '--user', 'stored@example.com'], 'Stored \\x1b]0;pwned'],
    ['event list', ['event', 'list', '--limit', '1000'], 'Gala \\u202eevil\\x9b2J'],
    ['event show', ['event', 'show', '--event', 'stored-gala'], 'Gala \\u202eevil\\x9b2J'],
    ['registration list', ['registration', 'list', '--event', 'stored-gala'], 'Stored \\x1b]0;pwned'],
  ])('%s', async (_what, args, shown) => {
    const res = await roster(...args);
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    expect(res.stdout).toContain(shown);
  });

  test('--json stays exact JSON (and escapes what JSON alone would leave raw)', async () => {
    const res = await roster('app', 'list', '--owner', victim.uid, '--json');
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    const apps = res.json.apps as { client_id: string; name: string; redirect_uris: string[] }[];
    expect(apps.map((a) => a.name)).toEqual([FORGED, 'Plain']);
    expect(apps[1]!.redirect_uris).toEqual([LONG_URI]);
    expect(apps[0]!.redirect_uris).toEqual(['https://app.example/cb?\u001b[2K', 'https://app.example/\u202Efdp.exe']);
    const event = await roster('event', 'show', '--event', 'stored-gala', '--json');
    expect(event.stdout).not.toMatch(RAW_UNSAFE);
    expect(event.json.name).toBe('Gala \u202Eevil\u009B2J');
  });

  test('export to stdout: the same records, nothing raw on the terminal', async () => {
    const res = await roster('export');
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    const records = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; name?: string; slug?: string });
    expect(records.find((r) => r.slug === 'stored-gala')!.name).toBe('Gala \u202Eevil\u009B2J');
    expect(records.some((r) => r.type === 'user' && r.name === `Stored ${FORGED}`)).toBe(true);
  });
});

describe('error messages that quote input are escaped and bounded', () => {
  test('a client id carrying an ESC sequence', async () => {
    const res = await roster('app', 'show', '--client', FORGED);
    expectOneLineRefusal(res, /no app with client id/);
    expect(res.stderr).toContain(FORGED_SHOWN);
  });

  test('a megabyte-long client id', async () => {
    const res = await roster('app', 'show', '--client', `${'A'.repeat(1_000_000)}\u001b[2J`);
    expectOneLineRefusal(res, /no app with client id A+…/);
    expect(res.stderr.length).toBeLessThan(1000);
  });

  test('an unknown scope, and a redirect URI to remove that the app does not have', async () => {
    expectOneLineRefusal(
      await roster('token', 'create', '--user', owner.uid, '--client', 'x', '--scope', `openid \u001b]0;x\u0007`),
      /unknown scope|no app with client id/,
    );
    const { app } = await server.stores.apps.create({
      ownerId: owner.id,
      name: 'R',
      redirectUris: ['https://r.example/cb'],
    });
    const res = await roster(
      'app',
      'update',
      '--client',
      app.clientId,
      '--remove-redirect-uri',
      `https://r.example/${FORGED}`,
    );
    expectOneLineRefusal(res, /is not a redirect URI of the app/);
    await server.stores.apps.delete(app.id);
  });

  test('an unknown option', async () => {
    const res = await roster('app', 'list', `--\u001b]0;pwned\u0007`);
    expect(res.code).toBe(2);
    expect(res.stderr).not.toMatch(RAW_UNSAFE);
  });
});

describe('import --dry-run echoes field values escaped and bounded', () => {
  const HUGE = 1_000_000;
  // Twenty lines, each carrying a megabyte in a field the reason quotes.
  const input = Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0
      ? JSON.stringify({ type: 'user', uid: `u_big${i}`, name: 'Big', zoneinfo: `\u001b[2J${'Z'.repeat(HUGE)}` })
      : JSON.stringify({ type: 'user', uid: `u_big${i}`, name: 'Big', [`\u001b[2J${'k'.repeat(HUGE)}`]: 1 }),
  ).join('\n');

  test('human mode: twenty short escaped lines', async () => {
    const res = await stdinRoster(input, 'import', '--dry-run', '-');
    expect(res.code).toBe(1);
    expect(res.stdout).not.toMatch(RAW_UNSAFE);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(line.length).toBeLessThan(400);
    expect(lines[0]).toMatch(/^line 1: zoneinfo "\\x1b\[2JZ+…" is not an IANA time zone$/);
    expect(lines[1]).toMatch(/^line 2: unknown field "\\x1b\[2Jk+…"$/);
    expect(res.stderr).toBe('roster: 20 bad lines (dry run: nothing written)\n');
  });

  test('--json: the reasons bounded too', async () => {
    const res = await stdinRoster(input, 'import', '--dry-run', '-', '--json');
    expect(res.code).toBe(1);
    expect(res.stdout.length).toBeLessThan(20 * 400);
    expect((res.json.errors as unknown[]).length).toBe(20);
  });
});
