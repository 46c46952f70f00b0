import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, exchangeCode } from '../helpers/relying-party.js';

// A confidential app authenticates with client_secret_basic or client_secret_post, whichever its library
// sends: openid-client 6 sends the secret in the body unless told otherwise.
const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let app: { clientId: string; clientSecret: string };

beforeAll(async () => {
  [server, browser, callback] = await Promise.all([startServer(), launchBrowser(), startCallback()]);
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'App Owner' });
  await server.stores.users.create({
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: await hashPassword(PASSWORD),
  });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'CRM Sync',
    redirectUris: [callback.redirectUri],
  });
  app = { clientId: made.app.clientId, clientSecret: made.clientSecret! };
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
});

const configWith = (auth: oidc.ClientAuth) =>
  oidc.discovery(new URL(server.url), app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

async function signIn(config: oidc.Configuration) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
    await page.goto(request.url.href);
    await signInOnPage(page, 'ada@example.com', PASSWORD);
    if (!page.url().startsWith(callback.redirectUri)) await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    return await exchangeCode(config, page.url(), request);
  } finally {
    await context.close();
  }
}

test('discovery lists both secret methods for the token and revocation endpoints', async () => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  for (const key of ['token_endpoint_auth_methods_supported', 'revocation_endpoint_auth_methods_supported']) {
    expect(doc[key]).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']));
  }
});

test.each([
  ['client_secret_post', () => oidc.ClientSecretPost(app.clientSecret)],
  ['client_secret_basic', () => oidc.ClientSecretBasic(app.clientSecret)],
])('an app authenticating with %s signs a user in, refreshes and revokes', async (_method, auth) => {
  const config = await configWith(auth());
  const tokens = await signIn(config);
  expect(tokens.scope).toBe('openid email');
  expect((await gql(server, tokens.access_token, '{ viewer { tokenKind } }')).status).toBe(200);

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  expect((await gql(server, refreshed.access_token, '{ viewer { tokenKind } }')).status).toBe(200);

  await oidc.tokenRevocation(config, refreshed.access_token);
  expect((await gql(server, refreshed.access_token, '{ viewer { tokenKind } }')).status).toBe(401);
});

test('a wrong secret in the body is refused like a wrong one in the header', async () => {
  const res = await fetch(`${server.url}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: app.clientId,
      client_secret: 'rst_cs_not-the-secret',
    }),
  });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: 'invalid_client' });
});

test('a secret sent both ways at once is refused as ambiguous', async () => {
  const res = await fetch(`${server.url}/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_secret: app.clientSecret }),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: 'invalid_request' });
});
