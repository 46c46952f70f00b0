import * as oidc from 'openid-client';
import { MAX_CLIENT_TOKENS } from '../../src/oidc/client-credentials.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { startServer } from '../helpers/harness.js';
import { until } from '../helpers/wait.js';

// An app trades its client id and secret for a short-lived token of its own, with its app token's rights,
// as openid-client does it, by either way of sending the secret.
const t = useSeededServer();

type App = { clientId: string; clientSecret: string };
const configFor = (app: App, auth = oidc.ClientSecretBasic(app.clientSecret), url = t.server.url) =>
  oidc.discovery(new URL(url), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

/** What the organizer's app may read: a private event it organizes, with its registrations. */
const READ =
  '{ viewer { tokenKind app { name } user { name } } event(slug: "private-retreat") { name registrations(first: 10) { totalCount } } }';

/** A confidential app of a new owner: the owner, the stored app, and its credentials. */
async function newApp(email: string, name: string) {
  const owner = await t.server.stores.users.create({ email, name: `Owner of ${name}` });
  const made = await t.server.stores.apps.create({
    ownerId: owner.id,
    name,
    redirectUris: ['http://localhost:3000/cb'],
  });
  return { owner, made, app: { clientId: made.app.clientId, clientSecret: made.clientSecret! } };
}

/** The error an openid-client call was refused with: its HTTP status and OAuth error code (body or challenge). */
async function refusal(call: Promise<unknown>): Promise<{ status: number; error: string }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof oidc.ResponseBodyError) return { status: err.status, error: err.error };
  if (err instanceof oidc.WWWAuthenticateChallengeError) {
    return { status: err.status, error: err.cause[0]?.parameters.error ?? '' };
  }
  throw new Error(`expected a refusal, got ${String(err)}`);
}

test('discovery lists the grant, and introspection with the two secret methods only', async () => {
  const doc = (await (await fetch(`${t.server.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  expect(doc.grant_types_supported).toEqual(
    expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
  );
  expect(doc.introspection_endpoint).toBe(`${t.server.url}/token/introspection`);
  expect(doc.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
});

test.each([
  ['client_secret_basic', oidc.ClientSecretBasic],
  ['client_secret_post', oidc.ClientSecretPost],
])('with %s: a short-lived bearer token that reads exactly what the app token reads', async (_method, auth) => {
  const { orgApp } = t.fx;
  const tokens = await oidc.clientCredentialsGrant(await configFor(orgApp, auth(orgApp.clientSecret)));
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.expires_in).toBeGreaterThan(t.server.config.accessTokenTtl - 5);
  expect(tokens.expires_in).toBeLessThanOrEqual(t.server.config.accessTokenTtl);
  expect(tokens.refresh_token).toBeUndefined();
  expect(tokens.scope).toBeUndefined();

  const own = await gql(t.server, tokens.access_token, READ);
  const appToken = await gql(t.server, orgApp.appToken, READ);
  expect(own.status).toBe(200);
  expect(own.body).toEqual(appToken.body);
  expect(own.body.data).toEqual({
    viewer: { tokenKind: 'APP', app: { name: 'Organizer Badge Printer' }, user: null },
    event: { name: 'Private Retreat', registrations: { totalCount: 1 } },
  });
  // An app reads no identity: userinfo is for a user's token.
  const info = await fetch(`${t.server.url}/openid/userinfo`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(info.status).toBe(401);
});

test('it spends the same hourly budget as the app token: one owner, one budget', async () => {
  const { otherApp } = t.fx;
  const { access_token: token } = await oidc.clientCredentialsGrant(await configFor(otherApp));
  const used = async (bearer: string) =>
    Number((await gql(t.server, bearer, '{ viewer { tokenKind } }')).headers.get('x-ratelimit-used'));
  const first = await used(otherApp.appToken);
  expect(await used(token)).toBe(first + 1);
  expect(await used(otherApp.appToken)).toBe(first + 2);
});

test('refused: a wrong secret, a public app, any scope, another app’s secret', async () => {
  const { orgApp, otherApp } = t.fx;
  expect(
    await refusal(oidc.clientCredentialsGrant(await configFor({ ...orgApp, clientSecret: 'rst_secret_wrong' }))),
  ).toEqual({
    status: 401,
    error: 'invalid_client',
  });
  expect(
    await refusal(
      oidc.clientCredentialsGrant(await configFor({ clientId: orgApp.clientId, clientSecret: otherApp.clientSecret })),
    ),
  ).toEqual({
    status: 401,
    error: 'invalid_client',
  });
  // openid, email and profile are a user's consent: a token no user gave must not claim them.
  for (const scope of ['openid', 'email', 'openid email profile']) {
    expect(await refusal(oidc.clientCredentialsGrant(await configFor(orgApp), { scope }))).toEqual({
      status: 400,
      error: 'invalid_scope',
    });
  }
  // A public app has no secret to prove who it is: the grant is not one of its own (the provider's code for
  // that is invalid_request, with "requested grant type is not allowed for this client").
  const made = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Check-in Screen',
    redirectUris: ['http://localhost:3000/callback'],
    confidential: false,
  });
  const publicConfig = await oidc.discovery(new URL(t.server.url), made.app.clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  expect(await refusal(oidc.clientCredentialsGrant(publicConfig))).toEqual({
    status: 400,
    error: 'invalid_request',
  });
});

test('revoked, it stops at once, though it was just used (and cached)', async () => {
  const config = await configFor(t.fx.orgApp);
  const { access_token: token } = await oidc.clientCredentialsGrant(config);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  await oidc.tokenRevocation(config, token);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
});

test('another app cannot revoke it', async () => {
  const { access_token: token } = await oidc.clientCredentialsGrant(await configFor(t.fx.orgApp));
  await oidc.tokenRevocation(await configFor(t.fx.otherApp), token);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
});

test('a new client secret ends the tokens the old one obtained, and the old secret', async () => {
  const { made, app } = await newApp('rotate@example.com', 'Rotating');
  const { access_token: token } = await oidc.clientCredentialsGrant(await configFor(app));
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  const secret = await t.server.stores.apps.rotateClientSecret(made.app.id);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
  expect((await refusal(oidc.clientCredentialsGrant(await configFor(app)))).error).toBe('invalid_client');
  const fresh = await oidc.clientCredentialsGrant(await configFor({ ...app, clientSecret: secret }));
  expect((await gql(t.server, fresh.access_token, '{ viewer { tokenKind } }')).status).toBe(200);
});

test('its owner deactivated, it stops at once and no new one is issued; reactivated, it works again', async () => {
  const { owner, app } = await newApp('leaver@example.com', 'Leaver');
  const config = await configFor(app);
  const { access_token: token } = await oidc.clientCredentialsGrant(config);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  await t.server.stores.users.update(owner.id, { activationState: 'deactivated' });
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
  expect((await refusal(oidc.clientCredentialsGrant(config))).error).toBe('invalid_client');
  await t.server.stores.users.update(owner.id, { activationState: 'active' });
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
});

test(`past ${MAX_CLIENT_TOKENS} live tokens, the grant is refused: nothing stored, no token ended, no cache emptied`, async () => {
  const config = await configFor(t.fx.otherApp);
  const tokens: string[] = [];
  const live = await t.server.stores.oidc.liveClientTokens(t.fx.otherApp.clientId);
  for (let i = live; i < MAX_CLIENT_TOKENS; i++) tokens.push((await oidc.clientCredentialsGrant(config)).access_token);
  const epoch = async () => (await t.server.stores.epochs.current()).auth;
  const before = await epoch();
  for (let i = 0; i < 10; i++) {
    expect(await refusal(oidc.clientCredentialsGrant(config))).toEqual({ status: 400, error: 'invalid_request' });
  }
  // Ending the oldest instead would move the auth epoch, and every instance would drop its cached tokens.
  expect(await epoch()).toBe(before);
  expect(await t.server.stores.oidc.liveClientTokens(t.fx.otherApp.clientId)).toBe(MAX_CLIENT_TOKENS);
  const statuses = await Promise.all(
    tokens.map(async (token) => (await gql(t.server, token, '{ viewer { tokenKind } }')).status),
  );
  expect(statuses.every((s) => s === 200)).toBe(true);
  // Revoking one makes room for one.
  await oidc.tokenRevocation(config, tokens[0]!);
  expect((await oidc.clientCredentialsGrant(config)).access_token).toEqual(expect.any(String));
}, 30_000);

test('a new secret set while a grant with the old one is under way ends that grant’s token too', async () => {
  const { made, app } = await newApp('race@example.com', 'Racer');
  const oidcStore = t.server.stores.oidc;
  const upsert = oidcStore.upsert.bind(oidcStore);
  // The app has authenticated with its old secret; the owner rotates it before the token is stored.
  oidcStore.upsert = async (model, id, record) => {
    if (model === 'ClientCredentials') {
      oidcStore.upsert = upsert;
      await t.server.stores.apps.rotateClientSecret(made.app.id);
    }
    return upsert(model, id, record);
  };
  try {
    expect(await refusal(oidc.clientCredentialsGrant(await configFor(app)))).toEqual({
      status: 401,
      error: 'invalid_client',
    });
  } finally {
    oidcStore.upsert = upsert;
  }
  expect(await t.server.stores.oidc.liveClientTokens(app.clientId)).toBe(0);
});

test('issuing and revoking an app’s own token are in the audit trail, as the app', async () => {
  const { app } = await newApp('audited@example.com', 'Audited');
  const config = await configFor(app);
  const { access_token: token } = await oidc.clientCredentialsGrant(config);
  await oidc.tokenRevocation(config, token);
  const rows = () =>
    t.server
      .db('audit_log')
      .where({ client_id: app.clientId })
      .orderBy('id')
      .select<{ action: string; actor_type: string }[]>('action', 'actor_type');
  await until(async () => (await rows()).length === 2, 'both audit rows written');
  expect(await rows()).toEqual([
    { action: 'token.issued', actor_type: 'app' },
    { action: 'token.revoked', actor_type: 'app' },
  ]);
});

test('it ends at its expiry (ACCESS_TOKEN_TTL)', async () => {
  const server = await startServer({ ACCESS_TOKEN_TTL: '3' });
  try {
    const owner = await server.stores.users.create({ email: 'brief@example.com', name: 'Brief Owner' });
    const made = await server.stores.apps.create({
      ownerId: owner.id,
      name: 'Brief',
      redirectUris: ['http://localhost:3000/cb'],
    });
    const app = { clientId: made.app.clientId, clientSecret: made.clientSecret! };
    const tokens = await oidc.clientCredentialsGrant(await configFor(app, undefined, server.url));
    const ends = Date.now() + 3000;
    expect(tokens.expires_in).toBe(3);
    expect((await gql(server, tokens.access_token, '{ viewer { tokenKind } }')).status).toBe(200);
    // Past its end, however long the first request took on a busy machine.
    await new Promise((r) => setTimeout(r, ends - Date.now() + 200));
    expect((await gql(server, tokens.access_token, '{ viewer { tokenKind } }')).status).toBe(401);
  } finally {
    await server.close();
  }
});
