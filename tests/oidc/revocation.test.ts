import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Token revocation (RFC 7009) ends a token only for the app it was issued to: another app, signed in with
// valid credentials of its own, can end none of another app's tokens, access or refresh.
const t = useSeededServer();

interface Client {
  clientId: string;
  clientSecret?: string;
}

const basic = ({ clientId, clientSecret }: Client) =>
  `Basic ${Buffer.from(`${clientId}:${clientSecret ?? ''}`).toString('base64')}`;

/** Posts to a provider endpoint as `client` authenticates: Basic, its secret in the form, or a public client's id. */
async function asClient(
  path: string,
  client: Client,
  fields: Record<string, string>,
  method: 'basic' | 'post' | 'none' = 'basic',
): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(fields);
  if (method === 'basic') headers.Authorization = basic(client);
  else body.set('client_id', client.clientId);
  if (method === 'post') body.set('client_secret', client.clientSecret!);
  return fetch(`${t.server.url}${path}`, { method: 'POST', headers, body });
}

/** The token's answers at /graphql and at userinfo. */
async function statusesOf(token: string): Promise<{ graphql: number; userinfo: number }> {
  const graphql = await gql(t.server, token, '{ viewer { tokenKind } }');
  const userinfo = await fetch(`${t.server.url}/openid/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  return { graphql: graphql.status, userinfo: userinfo.status };
}

const WORKS = { graphql: 200, userinfo: 200 };
const ENDED = { graphql: 401, userinfo: 401 };

/** A refresh token issued to `clientId` for the organizer, as the code flow would issue it. */
async function refreshTokenFor(clientId: string): Promise<string> {
  const { provider } = t.server;
  const grant = new provider.Grant({ accountId: t.fx.organizer.uid, clientId });
  grant.addOIDCScope('openid email');
  const client = await provider.Client.find(clientId);
  return new provider.RefreshToken({
    accountId: t.fx.organizer.uid,
    client: client!,
    grantId: await grant.save(),
    scope: 'openid email',
    gty: 'authorization_code',
  }).save();
}

test('app B cannot revoke app A’s user tokens with its own valid credentials; A revoking its own ends them', async () => {
  const a: Client = t.fx.orgApp;
  const b: Client = t.fx.otherApp;
  const publicApp = await t.server.stores.apps.create({
    ownerId: t.fx.other.id,
    name: 'Public B',
    redirectUris: ['http://localhost:3000/callback'],
    confidential: false,
  });
  const c: Client = { clientId: publicApp.app.clientId };
  const { access_token: token } = await mintAccessToken(t.server.provider, {
    accountId: t.fx.organizer.uid,
    clientId: a.clientId,
    scope: 'openid email',
  });
  const refreshToken = await refreshTokenFor(a.clientId);
  expect(await statusesOf(token)).toEqual(WORKS);

  // B's credentials are good (B can revoke a token of its own), and it tries every way it may authenticate.
  const own = await mintAccessToken(t.server.provider, {
    accountId: t.fx.other.uid,
    clientId: b.clientId,
    scope: 'openid',
  });
  const attempts = [
    await asClient('/token/revocation', b, { token }),
    await asClient('/token/revocation', b, { token, token_type_hint: 'access_token' }),
    await asClient('/token/revocation', b, { token }, 'post'),
    await asClient('/token/revocation', c, { token }, 'none'),
    await asClient('/token/revocation', b, { token: refreshToken, token_type_hint: 'refresh_token' }),
    await asClient('/token/revocation', c, { token: refreshToken }, 'none'),
  ];
  // Refused quietly or with an error, never a failure of the server and never an authentication failure.
  expect(attempts.map((res) => res.status).filter((s) => s !== 200 && s !== 400)).toEqual([]);
  expect(await statusesOf(token)).toEqual(WORKS);
  const refreshed = await asClient('/token', a, { grant_type: 'refresh_token', refresh_token: refreshToken });
  expect(refreshed.status).toBe(200);
  const { access_token: fromRefresh } = (await refreshed.json()) as { access_token: string };
  expect(await statusesOf(fromRefresh)).toEqual(WORKS);

  // The same credentials do revoke B's own token: B was a client that could revoke, just not A's tokens.
  expect((await asClient('/token/revocation', b, { token: own.access_token })).status).toBe(200);
  expect(await statusesOf(own.access_token)).toEqual(ENDED);

  // A revoking its own token ends it.
  expect((await asClient('/token/revocation', a, { token })).status).toBe(200);
  expect(await statusesOf(token)).toEqual(ENDED);
});
