import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import * as oidc from 'openid-client';
import { hashPassword } from '../src/lib/secrets.js';
import { createDb, migrate, type Db } from '../src/stores/database.js';
import { createStores, type Stores } from '../src/stores/stores.js';
import { loadConfig } from '../src/config.js';
import { createIdentity } from '../src/oidc/provider.js';
import { KEY_ACTIVATION_DELAY_MS, rotateSigningKey } from '../src/services/signing-keys.js';
import { mintAccessToken } from '../src/oidc/mint-token.js';
import { launchBrowser, signInOnPage, startCallback } from './helpers/browser.js';
import { useBuiltDist } from './helpers/build.js';
import { cli } from './helpers/cli.js';
import { freshDatabase } from './helpers/harness.js';
import { spawnServer, stopServers, type ServerProcess } from './helpers/process.js';
import { authorizationRequest, exchangeCode } from './helpers/relying-party.js';

// Two real server processes on one database (SQLite file in WAL mode, or PostgreSQL): nothing that
// another instance needs may live only in one process's memory.
// The public origin is a small balancer in front of both (started first: BASE_URL is its address).
useBuiltDist();
let BASE_URL = '';
let balancer: Awaited<ReturnType<typeof startBalancer>>;
/** The instance the balancer sends the next request to. */
let target = '';

let database: { url: string; drop(): Promise<void> };
let db: Db;
let stores: Stores;
const instances: ServerProcess[] = [];

function startInstance(): Promise<ServerProcess> {
  return spawnServer({
    NODE_ENV: 'production',
    BASE_URL,
    DATABASE_URL: database.url,
    RATE_LIMIT_POINTS: '8',
    KEYS_RELOAD_INTERVAL: '1',
  });
}

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url);
  await migrate(db);
  stores = createStores(db);
  balancer = await startBalancer(() => target);
  BASE_URL = balancer.url;
  // Both start at once on an empty database: they must still agree on keys and salts.
  instances.push(...(await Promise.all([startInstance(), startInstance()])));
}, 30_000);

afterAll(async () => {
  await stopServers(instances);
  await balancer.close();
  await db.destroy();
  await database.drop();
});

const [a, b] = [() => instances[0]!, () => instances[1]!];

test('both instances publish the same keys and discovery document', async () => {
  const jwks = await Promise.all(instances.map(async (i) => (await fetch(`${i.url}/jwks`)).json()));
  expect(jwks[0]).toEqual(jwks[1]);
  expect((jwks[0] as { keys: unknown[] }).keys).toHaveLength(1);
  // Endpoint URLs come from BASE_URL, whichever instance answers and whatever Host it was asked on.
  const discovery = await Promise.all(
    instances.map(async (i) => (await fetch(`${i.url}/.well-known/openid-configuration`)).json()),
  );
  expect(discovery[0]).toEqual(discovery[1]);
  expect((discovery[0] as { issuer: string }).issuer).toBe(BASE_URL);
});

describe('tokens', () => {
  let clientId: string;
  let appToken: string;
  let appId: number;
  let uid: string;

  beforeAll(async () => {
    const owner = await stores.users.create({ email: 'multi@example.com', name: 'Multi Instance' });
    uid = owner.uid;
    const made = await stores.apps.create({ ownerId: owner.id, name: 'Multi', redirectUris: ['https://m.example/cb'] });
    clientId = made.app.clientId;
    appToken = made.appToken;
    appId = made.app.id;
  });

  test('a user token minted elsewhere works at both, with the same pairwise sub', async () => {
    const config = loadConfig({ NODE_ENV: 'test', BASE_URL, DATABASE_URL: database.url }, false);
    const { provider } = await createIdentity({ config, stores });
    const token = await mintAccessToken(provider, { accountId: uid, clientId, scope: 'openid profile' });
    const claims = await Promise.all(
      instances.map(async (i) => {
        const res = await fetch(`${i.url}/openid/userinfo`, {
          headers: { Authorization: `Bearer ${token.access_token}` },
        });
        expect(res.status).toBe(200);
        return res.json();
      }),
    );
    expect(claims[0]).toEqual(claims[1]);
    expect(claims[0]).toMatchObject({ uid, name: 'Multi Instance' });
  });

  test('an app token rotated through one dies at the other at once', async () => {
    const viewer = (url: string, token: string) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
      });
    expect((await viewer(a().url, appToken)).status).toBe(200);
    expect((await viewer(b().url, appToken)).status).toBe(200);
    const fresh = await stores.apps.rotateAppToken(appId);
    expect((await viewer(b().url, appToken)).status).toBe(401);
    expect((await viewer(a().url, appToken)).status).toBe(401);
    expect((await viewer(b().url, fresh)).status).toBe(200);
  });
});

test.each(['deactivated', 'pending'])(
  "an owner set %s: their user token and their app's token stop at both instances, until reactivated",
  async (state) => {
    const email = `suspended-${state}@example.com`;
    const owner = await stores.users.create({ email, name: 'Suspended Owner' });
    const made = await stores.apps.create({
      ownerId: owner.id,
      name: 'Suspended',
      redirectUris: ['https://s.example/cb'],
    });
    const config = loadConfig({ NODE_ENV: 'test', BASE_URL, DATABASE_URL: database.url }, false);
    const { provider } = await createIdentity({ config, stores });
    const user = await mintAccessToken(provider, {
      accountId: owner.uid,
      clientId: made.app.clientId,
      scope: 'openid',
    });
    const status = (url: string, token: string) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
      }).then((res) => res.status);
    // Each instance caches what it resolved; the owner's budget here is 8 requests.
    const everywhere = () =>
      Promise.all([a().url, b().url].flatMap((url) => [user.access_token, made.appToken].map((t) => status(url, t))));
    const operator = (to: string) => cli(database.url, ['user', 'set-state', '--user', email, '--state', to, '--json']);

    expect(await everywhere()).toEqual([200, 200, 200, 200]);
    expect((await operator(state)).json).toMatchObject({ activation_state: state });
    expect(await everywhere()).toEqual([401, 401, 401, 401]);
    expect((await operator('active')).code).toBe(0);
    expect(await everywhere()).toEqual([200, 200, 200, 200]);
  },
);

test('the rate limit is shared: points spent at one instance are gone at the other', async () => {
  const owner = await stores.users.create({ email: 'budget@example.com', name: 'Budget Owner' });
  const { appToken } = await stores.apps.create({
    ownerId: owner.id,
    name: 'Budget',
    redirectUris: ['https://b.example/cb'],
  });
  const ask = (url: string) =>
    fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
    });
  for (let i = 0; i < 4; i += 1) {
    expect((await ask(a().url)).status).toBe(200);
    const res = await ask(b().url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-used')).toBe(String(2 * i + 2));
  }
  expect((await ask(a().url)).status).toBe(429);
  expect((await ask(b().url)).status).toBe(429);
});

/** The registrants' names of an event's first page, as `token` reads them at `url`. */
async function registrantNames(url: string, token: string, slug: string): Promise<string[]> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      query:
        'query($slug: String!) { event(slug: $slug) { registrations(first: 5) { nodes { registrant { name } } } } }',
      variables: { slug },
    }),
  });
  const body = (await res.json()) as {
    data: { event: { registrations: { nodes: { registrant: { name: string } }[] } } };
  };
  return body.data.event.registrations.nodes.map((n) => n.registrant.name);
}

test('an answer replayed at both instances is recomputed at both after a write by the CLI', async () => {
  const owner = await stores.users.create({ email: 'cached@example.com', name: 'Cached Owner' });
  const registrant = await stores.users.create({ email: 'guest@example.com', name: 'Guest Before' });
  const event = await stores.events.create({ slug: 'cached-event', name: 'Cached', organizerIds: [owner.id] });
  await stores.registrations.create(event.id, registrant.id);
  const { appToken } = await stores.apps.create({
    ownerId: owner.id,
    name: 'Cache',
    redirectUris: ['https://c.example/cb'],
  });
  const names = (url: string) => registrantNames(url, appToken, 'cached-event');
  for (const instance of [a(), b(), a(), b()]) expect(await names(instance.url)).toEqual(['Guest Before']);
  const updated = await cli(database.url, ['user', 'update', '--user', 'guest@example.com', '--name', 'Guest After']);
  expect(updated.code).toBe(0);
  expect(await names(b().url)).toEqual(['Guest After']);
  expect(await names(a().url)).toEqual(['Guest After']);
});

test('an organizer removed from a private event by the CLI loses it at both instances at once', async () => {
  const owner = await stores.users.create({ email: 'keeper@example.com', name: 'Keeper' });
  const leaving = await stores.users.create({ email: 'leaving@example.com', name: 'Leaving Organizer' });
  await stores.events.create({
    slug: 'closed-door',
    name: 'Closed Door',
    visibility: 'private',
    organizerIds: [owner.id, leaving.id],
  });
  const { appToken } = await stores.apps.create({
    ownerId: leaving.id,
    name: 'Leaving',
    redirectUris: ['https://l.example/cb'],
  });
  const eventName = async (url: string) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ event(slug: "closed-door") { name } }' }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { event: { name: string } | null } }).data.event?.name ?? null;
  };
  // Each instance has read the event and its organizers (and kept the answer) before the write.
  for (const instance of [a(), b(), a(), b()]) expect(await eventName(instance.url)).toBe('Closed Door');
  const removed = await cli(database.url, [
    'event',
    'update',
    '--event',
    'closed-door',
    '--remove-organizer',
    'leaving@example.com',
  ]);
  expect(removed.code).toBe(0);
  expect(await eventName(b().url)).toBeNull();
  expect(await eventName(a().url)).toBeNull();
});

test('a registration added or removed elsewhere shows at both instances at once', async () => {
  const owner = await stores.users.create({ email: 'doors@example.com', name: 'Doors Owner' });
  const guest = await stores.users.create({ email: 'walkin@example.com', name: 'Walk In' });
  const event = await stores.events.create({ slug: 'doors-open', name: 'Doors', organizerIds: [owner.id] });
  const { appToken } = await stores.apps.create({
    ownerId: owner.id,
    name: 'Doors',
    redirectUris: ['https://d.example/cb'],
  });
  const names = (url: string) => registrantNames(url, appToken, 'doors-open');
  for (const instance of [a(), b(), a(), b()]) expect(await names(instance.url)).toEqual([]);
  // Written by this process, as a third instance would: neither server took part.
  await stores.registrations.create(event.id, guest.id);
  expect(await names(b().url)).toEqual(['Walk In']);
  expect(await names(a().url)).toEqual(['Walk In']);
  await stores.registrations.delete(event.id, guest.id);
  expect(await names(a().url)).toEqual([]);
  expect(await names(b().url)).toEqual([]);
});

/** A load balancer in miniature: forwards every request, unchanged, to whichever instance `pick` names. */
async function startBalancer(pick: () => string) {
  const served: string[] = [];
  const server = createHttpServer((req, res) => {
    const target = new URL(pick());
    served.push(`${target.port} ${req.method} ${req.url?.split('?')[0]}`);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Signs a new user in through the balancer: the authorization request at A, everything after it at B. */
async function signInAcross(label: string) {
  const password = 'across two instances';
  const email = `${label}@example.com`;
  const user = await stores.users.create({ email, name: 'Roaming User', passwordHash: await hashPassword(password) });
  const callback = await startCallback();
  const made = await stores.apps.create({
    ownerId: user.id,
    name: 'Roaming App',
    redirectUris: [callback.redirectUri],
  });
  target = a().url;
  balancer.served.length = 0;
  const browser = await launchBrowser();
  try {
    const config = new oidc.Configuration(
      {
        issuer: BASE_URL,
        authorization_endpoint: `${balancer.url}/auth`,
        token_endpoint: `${balancer.url}/token`,
        jwks_uri: `${balancer.url}/jwks`,
        userinfo_endpoint: `${balancer.url}/openid/userinfo`,
      },
      made.app.clientId,
      undefined,
      oidc.ClientSecretBasic(made.clientSecret!),
    );
    oidc.allowInsecureRequests(config);
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid profile' });
    const page = await browser.newPage();
    await page.goto(request.url.href);
    await page.getByLabel('Password').waitFor();

    // Everything from here on goes to the other instance: login, consent, resume, code, token.
    target = b().url;
    await signInOnPage(page, email, password);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
    const tokens = await exchangeCode(config, page.url(), request);
    // And the token works at the first instance.
    target = a().url;
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    return { tokens, info, served: balancer.served };
  } finally {
    await browser.close();
    await callback.close();
  }
}

test('a sign-in started at one instance finishes at the other', async () => {
  const { tokens, info, served } = await signInAcross('roaming');
  expect(tokens.scope).toBe('openid profile');
  expect(tokens.claims()!.iss).toBe(BASE_URL);
  expect(info.name).toBe('Roaming User');
  const portA = new URL(a().url).port;
  const portB = new URL(b().url).port;
  expect(served.find((line) => line.includes('GET /auth'))).toMatch(new RegExp(`^${portA} `));
  expect(served.find((line) => line.includes('/login'))).toMatch(new RegExp(`^${portB} POST`));
});

test('a rotated key is published by both instances without a restart, and signs once it is active', async () => {
  const kids = async () =>
    Promise.all(
      instances.map(async (i) => ((await (await fetch(`${i.url}/jwks`)).json()) as { keys: { kid: string }[] }).keys),
    ).then((all) => all.map((keys) => keys.map((k) => k.kid)));
  const until = async (check: (lists: string[][]) => boolean) => {
    for (let i = 0; i < 50; i += 1) {
      if (check(await kids())) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`keys never settled: ${JSON.stringify(await kids())}`);
  };
  const [before] = await kids();

  // Rotated now: published at once by both, but the old key still signs.
  const { kid: fresh } = await rotateSigningKey(stores);
  await until((lists) => lists.every((l) => l.includes(fresh)));
  const signedBefore = await signInAcross('before-activation');
  expect(idTokenKid(signedBefore.tokens.id_token!)).toBe(before![0]);

  // A key added long enough ago is active: both instances sign with it.
  const past = Date.now() - KEY_ACTIVATION_DELAY_MS - 1000;
  const { kid: active } = await rotateSigningKey(stores, past);
  await until((lists) => lists.every((l) => l[0] === active));
  const signedAfter = await signInAcross('after-activation');
  expect(idTokenKid(signedAfter.tokens.id_token!)).toBe(active);
  // Older keys stay published for the tokens they signed.
  const [now] = await kids();
  expect(now).toEqual(expect.arrayContaining([...before!, fresh, active]));
});

const idTokenKid = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
