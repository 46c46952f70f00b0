import type { UserRow } from '../../src/stores/types.js';
import { signedInUser } from '../helpers/account-session.js';
import { cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Plain-http redirect URIs in production: authorization codes would cross the network in clear. With
// NODE_ENV=production a redirect URI must be https, except on a loopback host (OAuth 2.1, RFC 8252):
// localhost, 127.0.0.0/8 and [::1]. Elsewhere (development, test) plain http stays allowed.

const PRODUCTION = { NODE_ENV: 'production', BASE_URL: 'https://roster.example' };
const MESSAGE = 'must use https (plain http only on a loopback host: localhost, 127.0.0.0/8 or [::1])';

const LOOPBACK = [
  'http://localhost:3000/callback',
  'http://localhost/cb',
  'http://127.0.0.1:8080/cb',
  'http://127.45.6.7/cb',
  'http://[::1]:3000/cb',
];
const NOT_LOOPBACK = [
  'http://app.example/cb',
  'http://localhost.evil.example/cb',
  'http://127.0.0.1.nip.io/cb',
  'http://evil.localhost/cb',
  'http://[::ffff:127.0.0.1]/cb',
  'http://0.0.0.0/cb',
  'http://10.0.0.1/cb',
  'http://[::2]/cb',
];

let server: TestServer;
let owner: UserRow;
beforeAll(async () => {
  server = await startServer();
  owner = await server.stores.users.create({ email: 'prod-owner@example.com', name: 'Pia Prod' });
});
afterAll(() => server?.close());

const roster = (args: string[], env: NodeJS.ProcessEnv = PRODUCTION) => cli(server.config.databaseUrl, args, '', env);
const create = (uri: string, env?: NodeJS.ProcessEnv) =>
  roster(['app', 'create', '--owner', owner.uid, '--name', 'Prod app', '--redirect-uri', uri, '--json'], env);

describe('the CLI with NODE_ENV=production', () => {
  test.each(NOT_LOOPBACK)('refuses %s in one line', async (uri) => {
    const res = await create(uri);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`roster: --redirect-uri ${MESSAGE}\n`);
  });

  test.each([...LOOPBACK, 'https://app.example/cb', 'https://localhost/cb'])('takes %s', async (uri) => {
    const res = await create(uri);
    expect(res.code).toBe(0);
    expect(res.json.redirect_uris).toEqual([uri]);
    await roster(['app', 'delete', '--client', res.json.client_id as string]);
  });

  test('refuses an http URI added to, or replacing those of, an existing app', async () => {
    const made = await create('https://app.example/cb');
    const client = made.json.client_id as string;
    for (const args of [
      ['--add-redirect-uri', 'http://app.example/other'],
      ['--redirect-uri', 'http://app.example/cb'],
    ]) {
      const res = await roster(['app', 'update', '--client', client, ...args]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/must use https/);
    }
    expect((await server.stores.apps.findByClientId(client))!.redirectUris).toEqual(['https://app.example/cb']);
    await roster(['app', 'delete', '--client', client]);
  });

  test('outside production plain http stays allowed', async () => {
    const res = await create('http://app.example/cb', { NODE_ENV: 'development' });
    expect(res.code).toBe(0);
    await roster(['app', 'delete', '--client', res.json.client_id as string]);
  });
});

describe('the account pages with NODE_ENV=production', () => {
  let prod: TestServer;
  beforeAll(async () => {
    // Served over loopback http, which a production BASE_URL allows; the rule is about the apps' URIs.
    prod = await startServer({ NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  });
  afterAll(() => prod?.close());

  const alertOf = (text: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(text)?.[1];

  test('registration refuses a plain-http URI, takes https and loopback', async () => {
    const { user, session } = await signedInUser(prod, 'Paula');
    const refused = await session.post('/account/apps', {
      name: 'Clear text',
      redirect_uris: 'https://fine.example/cb\nhttp://app.example/cb',
      type: 'confidential',
    });
    expect(refused.status).toBe(400);
    expect(alertOf(refused.text)).toBe(`Redirect URI ${MESSAGE}.`);
    expect(await prod.stores.apps.listByOwner(user.id)).toEqual([]);

    const taken = await session.post('/account/apps', {
      name: 'Careful',
      redirect_uris: ['https://app.example/cb', ...LOOPBACK].join('\n'),
      type: 'public',
    });
    expect(taken.status).toBe(201);
  });

  test('editing refuses a plain-http URI', async () => {
    const { user, session } = await signedInUser(prod, 'Petra');
    const { app } = await prod.stores.apps.create({
      ownerId: user.id,
      name: 'Edited',
      redirectUris: ['https://app.example/cb'],
    });
    const refused = await session.post(`/account/apps/${app.id}/edit`, { redirect_uris: 'http://app.example/cb' });
    expect(refused.status).toBe(400);
    expect(alertOf(refused.text)).toBe(`Redirect URI ${MESSAGE}.`);
    expect((await prod.stores.apps.findByClientId(app.clientId))!.redirectUris).toEqual(['https://app.example/cb']);
  });
});
