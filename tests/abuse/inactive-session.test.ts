import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { ActivationState, UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover, exchangeCode } from '../helpers/relying-party.js';

// A browser still holding the session of a user who was since deactivated: the stale session ends and
// the same authorization request goes on at the login page (never a 500), as Keycloak does.
const PASSWORD = 'a long and careful passphrase';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let config: oidc.Configuration;
let passwordHash: string;
let context: BrowserContext;
let page: Page;
let count = 0;

beforeAll(async () => {
  [server, browser, callback] = await Promise.all([startServer(), launchBrowser(), startCallback()]);
  passwordHash = await hashPassword(PASSWORD);
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'App Owner' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [callback.redirectUri],
  });
  config = await discover(server.url, made.app.clientId, made.clientSecret!);
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});
afterEach(() => context.close());

async function newUser(): Promise<UserRow> {
  count += 1;
  return server.stores.users.create({ email: `ada${count}@example.com`, name: `Ada ${count}`, passwordHash });
}

async function setState(uid: string, state: ActivationState) {
  const res = await cli(server.config.databaseUrl, ['user', 'set-state', '--user', uid, '--state', state, '--json']);
  expect(res.code).toBe(0);
}

const request = (extra?: Record<string, string>) =>
  authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid', extra });

/** Signs `user` in through the app, consenting if asked; returns the tokens. */
async function signInThroughApp(user: UserRow) {
  const req = await request();
  await page.goto(req.url.href);
  await signInOnPage(page, user.email!, PASSWORD);
  if (!page.url().startsWith(callback.redirectUri)) await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
  return exchangeCode(config, page.url(), req);
}

const sessionRows = (uid: string) => server.db('oidc_payloads').where({ model: 'Session', account_id: uid });

describe("a browser holding a deactivated user's sign-in session", () => {
  test.each<ActivationState>(['deactivated', 'pending'])(
    'set %s: the session ends and the same request goes on at the login page, for anyone',
    async (state) => {
      const ada = await newUser();
      await signInThroughApp(ada);
      expect(await sessionRows(ada.uid)).toHaveLength(1);
      await setState(ada.uid, state);

      const req = await request();
      const res = await page.goto(req.url.href);
      expect(res!.status()).toBe(200);
      await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
      expect(await page.textContent('main')).toContain('Badge Printer');
      expect(await sessionRows(ada.uid)).toHaveLength(0);

      // Someone else at this browser finishes the very same request.
      const grace = await newUser();
      await signInOnPage(page, grace.email!, PASSWORD);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
      const tokens = await exchangeCode(config, page.url(), req);
      const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      expect(info.uid).toBe(grace.uid);
    },
  );

  test('prompt=none gets login_required back at the app, and the session stays ended after reactivation', async () => {
    const ada = await newUser();
    await signInThroughApp(ada);
    await setState(ada.uid, 'deactivated');

    const silent = await request({ prompt: 'none' });
    await page.goto(silent.url.href);
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('login_required');
    expect(back.searchParams.get('state')).toBe(silent.state);

    // The ended session does not come back with the user: the password is asked again.
    await setState(ada.uid, 'active');
    await page.goto((await request()).url.href);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    await signInOnPage(page, ada.email!, PASSWORD);
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
  });

  test('the deactivated user cannot sign in again at that page', async () => {
    const ada = await newUser();
    await signInThroughApp(ada);
    await setState(ada.uid, 'deactivated');
    await page.goto((await request()).url.href);
    await signInOnPage(page, ada.email!, PASSWORD);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The email or password is incorrect.');
  });
});

describe("the account pages of a deactivated user's browser", () => {
  test('end the session: the login form, the stored session gone, still gone after reactivation', async () => {
    const ada = await newUser();
    await page.goto(`${server.url}/account`);
    await signInOnPage(page, ada.email!, PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await page.textContent('main')).toContain(`Signed in as ${ada.email}`);
    const stored = () => server.db('account_sessions').where({ user_id: ada.id });
    expect(await stored()).toHaveLength(1);

    await setState(ada.uid, 'deactivated');
    await page.goto(`${server.url}/account`);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    expect(await stored()).toHaveLength(0);
    expect((await context.cookies()).find((c) => c.name === 'roster.account')).toBeUndefined();

    await setState(ada.uid, 'active');
    await page.goto(`${server.url}/account`);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
  });
});
