import { createDb, type Db } from '../../src/stores/database.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { sqlDuring } from '../helpers/sql.js';

// Resolved bearer tokens are cached per instance; every way a token ends must still hold at once.
const t = useSeededServer();
let other: Db; // another writer on the same database: a second instance, or the CLI

beforeAll(() => {
  other = createDb(t.server.config.databaseUrl);
});
afterAll(() => other.destroy());

const ask = (token: string) =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
  });

/** The SQL run while `fn` runs. */
const statements = async (fn: () => Promise<unknown>) => (await sqlDuring(t.server.db, fn)).sql;

const TOKEN_TABLES = /\b(oidc_payloads|users|client_apps|app_tokens)\b/;

let n = 0;
/** A fresh user with a user token for a fresh app of another user, so each case may end its own. */
async function freshToken(expiresIn?: number) {
  n += 1;
  const user = await t.server.stores.users.create({ email: `cache${n}@example.com`, name: `Cache ${n}` });
  const owner = await t.server.stores.users.create({ email: `owner${n}@example.com`, name: `Owner ${n}` });
  const { app, appToken } = await t.server.stores.apps.create({
    ownerId: owner.id,
    name: `Cache app ${n}`,
    redirectUris: ['https://example.com/cb'],
  });
  const minted = await mintAccessToken(t.server.provider, {
    accountId: user.uid,
    clientId: app.clientId,
    scope: 'openid',
    expiresIn,
  });
  return { user, app, appToken, token: minted.access_token };
}

test('a token is looked up once; later requests read nothing but the epochs', async () => {
  const { token, appToken } = await freshToken();
  // A user token: its row, its grant, then its user and app (and the app's owner) in one statement;
  // an app token: its app and the app's owner in one statement.
  for (const [bearer, lookups] of [
    [token, 3],
    [appToken, 1],
  ] as const) {
    const first = await statements(async () => expect((await ask(bearer)).status).toBe(200));
    expect(first.filter((s) => TOKEN_TABLES.test(s))).toHaveLength(lookups);
    const again = await statements(async () => expect((await ask(bearer)).status).toBe(200));
    expect(again.filter((s) => TOKEN_TABLES.test(s))).toEqual([]);
    // (On SQLite the epochs are read on the connection itself, outside knex: not even that shows.)
    expect(again.filter((s) => !/\bauth_epoch\b/.test(s))).toEqual([]);
  }
});

type Fresh = Awaited<ReturnType<typeof freshToken>>;

test.each<[string, (f: Fresh) => Promise<unknown>]>([
  [
    'the access token revoked through the provider',
    async ({ token }) => (await t.server.provider.AccessToken.find(token))!.destroy(),
  ],
  [
    'its grant revoked',
    async ({ token }) => {
      const { grantId } = (await t.server.provider.AccessToken.find(token))!;
      await (await t.server.provider.Grant.find(grantId))!.destroy();
    },
  ],
  [
    'the user deactivated by another writer',
    ({ user }) => other('users').where({ id: user.id }).update({ activation_state: 'deactivated' }),
  ],
  [
    "the app's owner set pending by another writer",
    ({ app }) => other('users').where({ id: app.ownerId }).update({ activation_state: 'pending' }),
  ],
  ['the app deleted by another writer', ({ app }) => other('client_apps').where({ id: app.id }).delete()],
  [
    'the token row deleted by another writer',
    ({ user }) => other('oidc_payloads').where({ model: 'AccessToken', account_id: user.uid }).delete(),
  ],
])('a cached user token fails on the next request once %s', async (_name, end) => {
  const fresh = await freshToken();
  expect((await ask(fresh.token)).status).toBe(200);
  expect((await ask(fresh.token)).status).toBe(200); // served from the cache
  await end(fresh);
  const res = await ask(fresh.token);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
});

test('a cached app token fails on the next request once its owner is deactivated by another writer', async () => {
  const { app, appToken } = await freshToken();
  expect((await ask(appToken)).status).toBe(200);
  expect((await ask(appToken)).status).toBe(200); // served from the cache
  await other('users').where({ id: app.ownerId }).update({ activation_state: 'deactivated' });
  expect((await ask(appToken)).status).toBe(401);
  await other('users').where({ id: app.ownerId }).update({ activation_state: 'active' });
  expect((await ask(appToken)).status).toBe(200);
});

test('an app token rotated by another writer fails on the next request', async () => {
  const { app, appToken } = await freshToken();
  expect((await ask(appToken)).status).toBe(200);
  await other('app_tokens').where({ app_id: app.id }).delete();
  expect((await ask(appToken)).status).toBe(401);
});

test('writes that end no token leave the cache alone', async () => {
  const { token } = await freshToken();
  expect((await ask(token)).status).toBe(200);
  // A new user is an insert: no watched row changes.
  await t.server.stores.users.create({ email: `bystander${n}@example.com`, name: 'Bystander' });
  const again = await statements(async () => expect((await ask(token)).status).toBe(200));
  expect(again.filter((s) => TOKEN_TABLES.test(s))).toEqual([]);
});

test('a cached token is not served past its expiry', async () => {
  // exp counts from a whole second, so a 1-second token may live 0.1 s: 3 leaves a loaded machine 2 s.
  const { token } = await freshToken(3);
  expect((await ask(token)).status).toBe(200);
  const exp = (await t.server.provider.AccessToken.find(token))!.exp!;
  // The stored row outlives `exp` by under a second (exp counts from a whole second); then it is gone.
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 + 1100 - Date.now()));
  expect(await t.server.provider.AccessToken.find(token)).toBeUndefined();
  expect((await ask(token)).status).toBe(401);
});
