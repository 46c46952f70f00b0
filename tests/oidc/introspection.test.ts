import * as oidc from 'openid-client';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// RFC 7662 for an app's own tokens, asked by the app with its secret (either way of sending it): the answer
// is what /graphql would do with the token now; anyone else's token, or any doubt, is `{ "active": false }`.
const t = useSeededServer();

type App = { clientId: string; clientSecret: string };
const configFor = (app: App, auth = oidc.ClientSecretBasic(app.clientSecret)) =>
  oidc.discovery(new URL(t.server.url), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

const introspect = async (app: App, token: string, auth?: oidc.ClientAuth) =>
  oidc.tokenIntrospection(await configFor(app, auth), token);

const INACTIVE = { active: false };

test.each([
  ['client_secret_basic', oidc.ClientSecretBasic],
  ['client_secret_post', oidc.ClientSecretPost],
])('with %s: its own user token, as the user’s pairwise subject with its scopes and times', async (_m, auth) => {
  const { orgApp, tokens } = t.fx;
  const answer = await introspect(orgApp, tokens.organizerUser, auth(orgApp.clientSecret));
  const info = (await (
    await fetch(`${t.server.url}/openid/userinfo`, { headers: { authorization: `Bearer ${tokens.organizerUser}` } })
  ).json()) as { sub: string };
  const now = Math.floor(Date.now() / 1000);
  expect(answer).toMatchObject({
    active: true,
    client_id: orgApp.clientId,
    sub: info.sub,
    scope: 'openid email profile',
    token_type: 'Bearer',
    iss: t.server.url,
  });
  expect(answer.exp).toBeGreaterThan(now);
  expect(answer.iat).toBeLessThanOrEqual(now);
  // The user's internal id is never shown to an app: the subject is the one this app knows.
  expect(answer.sub).not.toBe(t.fx.organizer.uid);
});

test('its own client_credentials token: active, no subject, no scope', async () => {
  const { orgApp } = t.fx;
  const { access_token: token } = await oidc.clientCredentialsGrant(await configFor(orgApp));
  const answer = await introspect(orgApp, token);
  expect(answer).toMatchObject({ active: true, client_id: orgApp.clientId, token_type: 'Bearer' });
  expect(answer.sub).toBeUndefined();
  expect(answer.scope).toBeUndefined();
});

test('another app’s tokens, app tokens and unknown strings are all just inactive', async () => {
  const { orgApp, otherApp, tokens } = t.fx;
  const { access_token: theirs } = await oidc.clientCredentialsGrant(await configFor(otherApp));
  for (const token of [tokens.otherUser, theirs, tokens.organizerApp, 'not-a-token', 'x'.repeat(4000)]) {
    expect(await introspect(orgApp, token)).toEqual(INACTIVE);
  }
  // Each is active for the app it was issued to, so "inactive" above said nothing about them.
  expect((await introspect(otherApp, tokens.otherUser)).active).toBe(true);
  expect((await introspect(otherApp, theirs)).active).toBe(true);
});

test('a revoked token, and one whose user is deactivated, are inactive (as at /graphql)', async () => {
  const { orgApp, registrants } = t.fx;
  const config = await configFor(orgApp);
  const mint = async (uid: string) =>
    (await mintAccessToken(t.server.provider, { accountId: uid, clientId: orgApp.clientId, scope: 'openid' }))
      .access_token;
  const revoked = await mint(registrants[0]!.uid);
  expect((await introspect(orgApp, revoked)).active).toBe(true);
  await oidc.tokenRevocation(config, revoked);
  expect(await introspect(orgApp, revoked)).toEqual(INACTIVE);

  const leaver = await t.server.stores.users.create({ email: 'intro-leaver@example.com', name: 'Intro Leaver' });
  const token = await mint(leaver.uid);
  expect((await introspect(orgApp, token)).active).toBe(true);
  await t.server.stores.users.update(leaver.id, { activationState: 'deactivated' });
  expect(await introspect(orgApp, token)).toEqual(INACTIVE);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
  await t.server.stores.users.update(leaver.id, { activationState: 'active' });
  expect((await introspect(orgApp, token)).active).toBe(true);
});

test('a wrong secret, or none, is refused; a public app learns nothing, even of its own tokens', async () => {
  const { orgApp } = t.fx;
  const token = t.fx.tokens.organizerUser;
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${t.server.url}/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  const wrong = await post(
    { authorization: `Basic ${Buffer.from(`${orgApp.clientId}:rst_secret_wrong`).toString('base64')}` },
    `token=${token}`,
  );
  expect(wrong.status).toBe(401);
  expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
  const none = await post({}, `token=${token}`);
  expect(none.status).toBe(400);
  expect(await none.json()).toMatchObject({ error: 'invalid_request' });

  const made = await t.server.stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Kiosk',
    redirectUris: ['http://localhost:3000/callback'],
    confidential: false,
  });
  const own = await mintAccessToken(t.server.provider, {
    accountId: t.fx.organizer.uid,
    clientId: made.app.clientId,
    scope: 'openid',
  });
  expect((await gql(t.server, own.access_token, '{ viewer { tokenKind } }')).status).toBe(200);
  const publicAsk = await post({}, `client_id=${made.app.clientId}&token=${own.access_token}`);
  expect(publicAsk.status).toBe(200);
  expect(await publicAsk.json()).toEqual(INACTIVE);
});
