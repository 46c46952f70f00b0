import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword, sha256 } from '../../src/lib/secrets.js';
import { loadConfig } from '../../src/config.js';
import { isSqlite } from '../../src/stores/dialect.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createStores } from '../../src/stores/stores.js';
import { createIdentity } from '../../src/oidc/provider.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { freshDatabase, startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover, exchangeCode } from '../helpers/relying-party.js';

// A copy of the database (which also holds the cookie keys) must not let anyone present a cookie, a
// token or a code, nor resume a sign-in: every such value is stored only as a hash, or not at all.
const PASSWORD = 'a long and careful passphrase';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [server, browser, callback] = await Promise.all([startServer(), launchBrowser(), startCallback()]);
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
});

/** Every row of every table, as text. */
async function dumpDatabase(db: Db): Promise<string> {
  const tables: string[] = isSqlite(db)
    ? await db('sqlite_master').where({ type: 'table' }).pluck('name')
    : await db('pg_tables').where({ schemaname: 'public' }).pluck('tablename');
  const parts: string[] = [];
  for (const table of tables) parts.push(`${table}: ${JSON.stringify(await db(table).select('*'))}`);
  return parts.join('\n');
}

/** Every secret seen so far, with where it was seen. */
const secrets = new Map<string, Set<string>>();
const remember = (value: string, where: string) => secrets.set(value, (secrets.get(value) ?? new Set()).add(where));
const seen = () => [...secrets.values()].flatMap((where) => [...where]);

async function collectCookies() {
  for (const cookie of await context.cookies()) {
    // Short values (flags, empty) say nothing; every identifier here is far longer.
    if (cookie.value.length >= 16) remember(cookie.value, `cookie ${cookie.name}`);
  }
}

/** No secret seen so far appears anywhere in the database now. */
async function expectNoSecretsStored(stage: string) {
  await collectCookies();
  const dump = await dumpDatabase(server.db);
  const found = [...secrets]
    .filter(([value]) => dump.includes(value))
    .map(([, where]) => `${[...where].join(', ')} (${stage})`);
  expect(found).toEqual([]);
}

test('a whole sign-in, refresh and account visit leave no cookie, id or token in clear in the database', async () => {
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'App Owner' });
  const user = await server.stores.users.create({
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: await hashPassword(PASSWORD),
  });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [callback.redirectUri],
  });
  remember(made.appToken, 'app token');
  remember(made.clientSecret!, 'client secret');
  const config = await discover(server.url, made.app.clientId, made.clientSecret!);
  const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });

  // At the login page: an interaction in flight, no session yet.
  await page.goto(request.url.href);
  const interaction = new URL(page.url()).pathname.split('/').pop()!;
  remember(interaction, 'interaction uid');
  await collectCookies();
  expect(seen()).toEqual(expect.arrayContaining(['cookie _interaction', 'cookie _interaction_resume']));
  await expectNoSecretsStored('login page');

  // At the consent page: the interaction is bound to a session now.
  await signInOnPage(page, user.email!, PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  await collectCookies();
  expect(seen()).toContain('cookie _session');
  await expectNoSecretsStored('consent page');

  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
  remember(new URL(page.url()).searchParams.get('code')!, 'authorization code');
  await expectNoSecretsStored('back at the app');

  const tokens = await exchangeCode(config, page.url(), request);
  remember(tokens.access_token, 'access token');
  remember(tokens.refresh_token!, 'refresh token');
  remember(tokens.id_token!, 'ID token');
  await expectNoSecretsStored('tokens issued');

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  remember(refreshed.access_token, 'refreshed access token');
  remember(refreshed.refresh_token!, 'rotated refresh token');
  await expectNoSecretsStored('refreshed');

  // Signed in already: the next request of the app goes straight through.
  const again = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
  await page.goto(again.url.href);
  await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
  remember(new URL(page.url()).searchParams.get('code')!, 'second authorization code');
  await expectNoSecretsStored('second sign-in');

  // The account pages keep their own session.
  await page.goto(`${server.url}/account`);
  await signInOnPage(page, user.email!, PASSWORD);
  await page.waitForURL(`${server.url}/account`);
  await collectCookies();
  expect(seen()).toContain('cookie roster.account');
  await expectNoSecretsStored('account pages');
});

test('sessions and interactions stored in clear by the previous version are sealed by the migration, and still work', async () => {
  const database = await freshDatabase();
  const db = createDb(database.url);
  try {
    // The schema as the previous version left it.
    while ((await db.migrate.list())[1][0] !== '20261122040000_sealed_oidc_payloads') await db.migrate.up();
    const now = Math.floor(Date.now() / 1000);
    const [cookie, sessionUid, interaction] = ['s'.repeat(43), 'u'.repeat(21), 'i'.repeat(21)];
    const base = 'http://roster.test';
    const row = (model: string, id: string, payload: Record<string, unknown>, uid: string | null = null) => ({
      model,
      id: sha256(id),
      uid: uid && sha256(uid),
      account_id: 'u_ada',
      payload: JSON.stringify({ iat: now, exp: now + 3600, kind: model, jti: id, ...payload }),
      expires_at: (now + 3600) * 1000,
    });
    await db('oidc_payloads').insert([
      row('Session', cookie, { uid: sessionUid, accountId: 'u_ada', loginTs: now }, sessionUid),
      row('Interaction', interaction, {
        returnTo: `${base}/auth/${interaction}`,
        session: { accountId: 'u_ada', uid: sessionUid, cookie },
        params: { client_id: 'app', scope: 'openid' },
        prompt: { name: 'consent', reasons: [], details: {} },
      }),
    ]);

    await migrate(db);
    const dump = await dumpDatabase(db);
    expect(dump).not.toContain(cookie);
    expect(dump).not.toContain(interaction);

    const stores = createStores(db);
    const config = loadConfig({ NODE_ENV: 'test', BASE_URL: base, DATABASE_URL: database.url }, false);
    const { provider } = await createIdentity({ config, stores });
    const session = await provider.Session.find(cookie);
    expect(session).toMatchObject({ jti: cookie, uid: sessionUid, accountId: 'u_ada' });
    const resumed = await provider.Interaction.find(interaction);
    expect(resumed).toMatchObject({ jti: interaction, returnTo: `${base}/auth/${interaction}` });
    expect(resumed!.session).toEqual({ accountId: 'u_ada', uid: sessionUid });
  } finally {
    await db.destroy();
    await database.drop();
  }
});
