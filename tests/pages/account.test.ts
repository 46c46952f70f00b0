import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover, exchangeCode } from '../helpers/relying-party.js';

const PASSWORD = 'a long and careful passphrase';
const VIEWER = '{ viewer { tokenKind app { name } } }';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let passwordHash: string;
let user: UserRow;
let context: BrowserContext;
let page: Page;
let count = 0;

beforeAll(async () => {
  [server, browser, callback] = await Promise.all([startServer(), launchBrowser(), startCallback()]);
  passwordHash = await hashPassword(PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
});

beforeEach(async () => {
  count += 1;
  user = await server.stores.users.create({ email: `owner${count}@example.com`, name: 'Olga Owner', passwordHash });
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

afterEach(async () => {
  await context.close();
});

async function signInToAccount(): Promise<void> {
  await page.goto(`${server.url}/account`);
  await signInOnPage(page, user.email!, PASSWORD);
  await page.waitForURL(`${server.url}/account`);
}

/** Registers an app through the form; returns what the page shows once. */
async function registerApp(name: string, redirectUris: string[], type: 'confidential' | 'public' = 'confidential') {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel(/Redirect URIs/).fill(redirectUris.join('\n'));
  await page.getByRole('radio', { name: type === 'public' ? /Public/ : /Confidential/ }).check();
  const response = page.waitForResponse((r) => r.url().endsWith('/account/apps'));
  await page.getByRole('button', { name: 'Register app' }).click();
  expect((await response).status()).toBe(201);
  const text = async (id: string) => ((await page.locator(id).count()) ? await page.locator(id).textContent() : null);
  return {
    clientId: (await text('#client-id'))!,
    clientSecret: await text('#client-secret'),
    appToken: (await text('#app-token'))!,
  };
}

describe('account settings in a real browser', () => {
  it('signs in with a HttpOnly, SameSite=Lax session cookie and signs out', async () => {
    await page.goto(`${server.url}/account`);
    await signInOnPage(page, user.email!, 'not the password');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The email or password is incorrect.');
    await signInOnPage(page, user.email!, PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await page.textContent('main')).toContain(`Signed in as ${user.email}`);

    const session = (await context.cookies()).find((c) => c.name === 'roster.account')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/account' });
    // Only the hash of the session token is stored.
    const rows = await server.db('account_sessions').select('id_hash');
    expect(rows.map((r: { id_hash: string }) => r.id_hash)).not.toContain(session.value);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/account`);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    // The old cookie is dead on the server too.
    await context.addCookies([{ ...session }]);
    await page.goto(`${server.url}/account`);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
  });

  it('registers an app, shows its secrets once, and its app token works at /graphql', async () => {
    await signInToAccount();
    const made = await registerApp('Check-in Kiosk', ['https://kiosk.example/callback', 'http://localhost:8080/cb']);
    expect(made.clientSecret).toMatch(/^rst_cs_/);
    expect(made.appToken).toMatch(/^rst_app_/);
    expect(await page.textContent('main')).toContain('cannot show them again');

    const viewer = await gql(server, made.appToken, VIEWER);
    expect(viewer.status).toBe(200);
    expect(viewer.body.data!.viewer).toEqual({ tokenKind: 'APP', app: { name: 'Check-in Kiosk' } });

    // The list shows the app, but never a secret again.
    await page.goto(`${server.url}/account`);
    const listed = await page.textContent('main');
    expect(listed).toContain('Check-in Kiosk');
    expect(listed).toContain(made.clientId);
    expect(listed).not.toContain(made.clientSecret!);
    expect(listed).not.toContain(made.appToken);

    const stored = await server.stores.apps.findByClientId(made.clientId);
    expect(stored).toMatchObject({
      ownerId: user.id,
      redirectUris: ['https://kiosk.example/callback', 'http://localhost:8080/cb'],
    });
    expect(stored!.clientSecretHash).not.toBe(made.clientSecret);
  });

  it('a public app has no secret', async () => {
    await signInToAccount();
    const made = await registerApp('Phone App', ['https://phone.example/cb'], 'public');
    expect(made.clientSecret).toBeNull();
    expect((await server.stores.apps.findByClientId(made.clientId))!.clientSecretHash).toBeNull();
  });

  it('rejects bad app input with a clear message and keeps what was typed', async () => {
    await signInToAccount();
    await page.getByLabel('Name').fill('Bad App');
    await page.getByLabel(/Redirect URIs/).fill('not a url');
    await page.getByRole('button', { name: 'Register app' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Redirect URI must be an absolute http(s) URL.');
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Bad App');
    expect(await server.stores.apps.listByOwner(user.id)).toEqual([]);
  });

  it('refuses more than 10 redirect URIs, as the CLI does', async () => {
    await signInToAccount();
    await page.getByLabel('Name').fill('Many URIs');
    await page
      .getByLabel(/Redirect URIs/)
      .fill(Array.from({ length: 11 }, (_, i) => `https://many.example/${i}`).join('\n'));
    await page.getByRole('button', { name: 'Register app' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('At most 10 redirect URIs.');
    expect(await server.stores.apps.listByOwner(user.id)).toEqual([]);
  });

  it('regenerating the app token and the client secret kills the old ones at once', async () => {
    await signInToAccount();
    const made = await registerApp('Rotating App', [callback.redirectUri]);
    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: 'New app token' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The current app token stops working');
    await page.getByRole('button', { name: 'Replace app token' }).click();
    const newToken = (await page.locator('#app-token').textContent())!;
    expect(newToken).not.toBe(made.appToken);
    expect((await gql(server, made.appToken, VIEWER)).status).toBe(401);
    expect((await gql(server, newToken, VIEWER)).status).toBe(200);

    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: 'New client secret' }).click();
    await page.getByRole('button', { name: 'Replace client secret' }).click();
    const newSecret = (await page.locator('#client-secret').textContent())!;
    // Client authentication at the token endpoint: the old secret is an invalid client, the new one gets as far as the code.
    const tokenWith = (secret: string) =>
      fetch(`${server.url}/token`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${made.clientId}:${secret}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'nope',
          redirect_uri: callback.redirectUri,
        }),
      });
    const old = await tokenWith(made.clientSecret!);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: string }).error).toBe('invalid_client');
    const fresh = await tokenWith(newSecret);
    expect(((await fresh.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('lists the apps the user authorized with their scopes, and revoking one kills its tokens', async () => {
    // Another user's app, authorized by this user through the real login flow.
    const other = await server.stores.users.create({ email: `dev${count}@example.com`, name: 'Dev' });
    const app = await server.stores.apps.create({
      ownerId: other.id,
      name: 'Seating Planner',
      redirectUris: [callback.redirectUri],
    });
    const config = await discover(server.url, app.app.clientId, app.clientSecret!);
    const request = await authorizationRequest(config, {
      redirectUri: callback.redirectUri,
      scope: 'openid email profile',
    });
    await page.goto(request.url.href);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('checkbox', { name: /profile/ }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
    const tokens = await exchangeCode(config, page.url(), request);
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(200);

    await signInToAccount();
    const row = page.getByRole('row', { name: /Seating Planner/ });
    await expect(row.textContent()).resolves.toMatch(/email\s+openid/);
    expect(await row.textContent()).not.toContain('profile');
    await row.getByRole('link', { name: 'Revoke Seating Planner' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Seating Planner loses access/);
    await page.getByRole('button', { name: 'Revoke Seating Planner' }).click();
    await page.waitForURL(`${server.url}/account?done=revoked`);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Access was revoked');
    expect(await page.textContent('main')).toContain('You have not authorized any apps.');

    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(401);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('deleting an app kills its app token and the user tokens issued to it', async () => {
    await signInToAccount();
    const made = await registerApp('Short-lived App', [callback.redirectUri]);
    const config = await discover(server.url, made.clientId, made.clientSecret!);
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' });
    await page.goto(request.url.href);
    // The account pages and the login facility keep separate sessions.
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
    const tokens = await exchangeCode(config, page.url(), request);

    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: 'Delete Short-lived App' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Delete Short-lived App?');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('This cannot be undone');
    // Cancel keeps the app; the confirmed form deletes it.
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(await server.stores.apps.findByClientId(made.clientId)).toBeDefined();
    await page.getByRole('link', { name: 'Delete Short-lived App' }).click();
    await page.getByRole('button', { name: 'Delete Short-lived App' }).click();
    await page.waitForURL(`${server.url}/account?done=deleted`);
    expect(await page.textContent('main')).toContain('You have not registered any apps.');
    expect((await gql(server, made.appToken, VIEWER)).status).toBe(401);
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(401);
    const left = await server.db('oidc_payloads').where({ client_id: made.clientId }).count({ n: '*' });
    expect(Number(left[0]!.n)).toBe(0);
  });

  it('never touches another user’s app, and answers as if it did not exist', async () => {
    const other = await server.stores.users.create({ email: `victim${count}@example.com`, name: 'Victim' });
    const theirs = await server.stores.apps.create({
      ownerId: other.id,
      name: 'Their App',
      redirectUris: [callback.redirectUri],
    });
    await signInToAccount();
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    // Confirmed or not, by GET or POST: the same 404 as for an app that does not exist.
    for (const action of ['delete', 'token', 'secret', 'edit']) {
      const forms: Record<string, string>[] = [
        { _csrf: csrf },
        { _csrf: csrf, confirm: 'yes', redirect_uris: 'https://evil.example/cb' },
      ];
      for (const form of forms) {
        const res = await context.request.post(`${server.url}/account/apps/${theirs.app.id}/${action}`, {
          form,
          maxRedirects: 0,
        });
        expect(res.status()).toBe(404);
        const missing = await context.request.post(`${server.url}/account/apps/999999/${action}`, {
          form,
          maxRedirects: 0,
        });
        expect(missing.status()).toBe(404);
        expect(await missing.text()).toBe(await res.text());
      }
      const asked = await context.request.get(`${server.url}/account/apps/${theirs.app.id}/${action}`);
      expect(asked.status()).toBe(404);
      expect(await asked.text()).not.toContain('Their App');
    }
    expect(await server.stores.apps.findByClientId(theirs.app.clientId)).toMatchObject({
      redirectUris: [callback.redirectUri],
    });
    expect((await gql(server, theirs.appToken, VIEWER)).status).toBe(200);
  });

  it('every account form needs its CSRF token', async () => {
    await signInToAccount();
    const before = await server.stores.apps.listByOwner(user.id);
    const res = await context.request.post(`${server.url}/account/apps`, {
      form: { name: 'Forged', redirect_uris: 'https://forged.example/cb', type: 'public' },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('This form has expired');
    expect(await server.stores.apps.listByOwner(user.id)).toEqual(before);

    // A token made for another session is no good either.
    const login = await context.request.post(`${server.url}/account/login`, {
      form: { email: user.email!, password: PASSWORD },
      maxRedirects: 0,
    });
    expect(login.status()).toBe(403);
  });

  it('signed out, an action gets the sign-in form with 401', async () => {
    const res = await context.request.post(`${server.url}/account/apps/1/delete`, {
      form: { _csrf: 'x' },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(401);
    expect(await res.text()).toContain('Your session has ended');
  });
});
