import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover, exchangeCode, type AuthorizationRequest } from '../helpers/relying-party.js';

const PASSWORD = 'correct horse battery staple';
const VIEWER = '{ viewer { tokenKind scopes user { id name } app { clientId name } } }';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let user: UserRow;
let owner: UserRow;
let passwordHash: string;
let app: { clientId: string; clientSecret: string };
let publicApp: { clientId: string };
let config: oidc.Configuration;

beforeAll(async () => {
  [server, browser, callback] = await Promise.all([startServer(), launchBrowser(), startCallback()]);
  passwordHash = await hashPassword(PASSWORD);
  owner = await server.stores.users.create({ email: 'owner@example.com', name: 'App Owner' });
  // Two redirect hosts: pairwise subjects need no sector_identifier_uri from the app.
  const redirectUris = [callback.redirectUri, callback.postLogoutUri, 'https://badges.example/callback'];
  const made = await server.stores.apps.create({ ownerId: owner.id, name: 'Badge Printer', redirectUris });
  app = { clientId: made.app.clientId, clientSecret: made.clientSecret! };
  const pub = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Pocket App',
    redirectUris,
    confidential: false,
  });
  publicApp = { clientId: pub.app.clientId };
  config = await discover(server.url, app.clientId, app.clientSecret);
});

// Each test signs in as a new user: grants (and remembered consent) never carry over between tests.
let count = 0;
beforeEach(async () => {
  count += 1;
  user = await server.stores.users.create({
    email: `Ada${count}@Example.com`,
    emailVerified: true,
    name: 'Ada Lovelace',
    zoneinfo: 'Europe/London',
    passwordHash,
  });
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
});

/** Opens the authorization URL and waits until the browser is on a Roster page or back at the app. */
async function open(page: Page, request: AuthorizationRequest): Promise<void> {
  await page.goto(request.url.href);
}

const atCallback = (page: Page) => page.url().startsWith(callback.redirectUri);

/** Login (if asked), consent with `uncheck` unticked (if asked); returns the callback URL. */
async function signIn(context: BrowserContext, scope: string, uncheck: string[] = []) {
  const page = await context.newPage();
  const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope });
  await open(page, request);
  if (!atCallback(page)) {
    if (await page.getByLabel('Password').count()) {
      await signInOnPage(page, user.email!, PASSWORD);
    }
    if (!atCallback(page)) {
      for (const s of uncheck) await page.getByRole('checkbox', { name: new RegExp(s) }).uncheck();
      await page.getByRole('button', { name: 'Allow' }).click();
    }
  }
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
  const url = new URL(page.url());
  await page.close();
  return { url, request };
}

const exchange = (url: URL, request: AuthorizationRequest, cfg = config) => exchangeCode(cfg, url, request);

describe('signing in with the authorization code flow, in a real browser', () => {
  let context: BrowserContext;
  beforeEach(async () => {
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context.close();
  });

  it('logs in, consents with one scope unchecked, and gets exactly the granted scopes', async () => {
    const page = await context.newPage();
    const request = await authorizationRequest(config, {
      redirectUri: callback.redirectUri,
      scope: 'openid email profile',
    });
    await open(page, request);

    // Login page: the service and the app are named; labels are real labels.
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    expect(await page.textContent('main')).toContain('Badge Printer');
    await signInOnPage(page, user.email!.toLowerCase(), PASSWORD);

    // Consent page: each scope with its own checked box; openid cannot be unticked.
    expect(await page.textContent('h1')).toContain('Badge Printer');
    const boxes = page.getByRole('checkbox');
    await expect(boxes.count()).resolves.toBe(3);
    await expect(page.getByRole('checkbox', { name: /openid/ }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('checkbox', { name: /^Your email address/ }).isChecked()).resolves.toBe(true);
    expect(await page.textContent('main')).toContain('Your name, profile picture and time zone.');
    // What the token will do at the event API, and for how long, in plain words.
    const openid = (await page
      .locator('.scope', { has: page.getByRole('checkbox', { name: /openid/ }) })
      .textContent())!;
    expect(openid.replace(/\s+/g, ' ')).toContain(
      'read Roster as you: all public events, the private events you organize, and who registered for the ' +
        'events you organize, with their email addresses.',
    );
    expect((await page.textContent('form'))!.replace(/\s+/g, ' ')).toContain(
      'Badge Printer can keep this access for up to 14 days without asking you again',
    );
    await page.getByRole('checkbox', { name: /profile/ }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));

    // The code is exchanged a while after consent: the refresh token must still end when the grant does.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const tokens = await exchange(new URL(page.url()), request);
    expect(tokens.scope).toBe('openid email');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // The 14 days the consent page states: the grant's lifetime, which bounds the refresh token's.
    const { grantId } = (await server.provider.AccessToken.find(tokens.access_token))!;
    const grant = (await server.provider.Grant.find(grantId))!;
    expect(grant.exp! - grant.iat).toBe(14 * 24 * 3600);
    expect((await server.provider.RefreshToken.find(tokens.refresh_token!))!.exp).toBeLessThanOrEqual(grant.exp!);

    // openid-client validated the ID token (signature from JWKS, iss, aud, nonce, exp).
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(server.url);
    expect(claims.aud).toBe(app.clientId);
    expect(claims.nonce).toBe(request.nonce);
    expect(claims.sub).not.toBe(user.uid);
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('RS256');
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toEqual({
      sub: claims.sub,
      uid: user.uid,
      updated_at: Math.floor(user.updatedAt / 1000),
      email: user.email,
      email_verified: true,
    });

    const viewer = await gql(server, tokens.access_token, VIEWER);
    expect(viewer.status).toBe(200);
    expect(viewer.body.data!.viewer).toEqual({
      tokenKind: 'USER',
      scopes: ['openid', 'email'],
      user: { id: user.uid, name: 'Ada Lovelace' },
      app: { clientId: app.clientId, name: 'Badge Printer' },
    });
  });

  it('remembers consent: the same app and scopes skip the consent page, in this browser and a fresh one', async () => {
    const first = await signIn(context, 'openid email', []);
    await exchange(first.url, first.request);

    // Same browser: signed in and consented, straight back to the app.
    const page = await context.newPage();
    const again = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
    await open(page, again);
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    await exchange(new URL(page.url()), again);

    // Another browser: login again, but no consent page.
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    const third = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
    await open(other, third);
    await signInOnPage(other, user.email!, PASSWORD);
    await other.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const tokens = await exchange(new URL(other.url()), third);
    expect(tokens.scope).toBe('openid email');
    await fresh.close();
  });

  it('asks again only for a scope not yet granted, and a denied scope is not asked again', async () => {
    const first = await signIn(context, 'openid', []);
    await exchange(first.url, first.request);
    const page = await context.newPage();
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid profile' });
    await open(page, request);
    await expect(page.getByRole('checkbox').count()).resolves.toBe(1);
    await page.getByRole('checkbox', { name: /profile/ }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    expect((await exchange(new URL(page.url()), request)).scope).toBe('openid');

    // The denied scope was rejected on the grant: asking again does not loop through consent.
    const again = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid profile' });
    await open(page, again);
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    expect((await exchange(new URL(page.url()), again)).scope).toBe('openid');
  });

  it('denying all sends access_denied back to the app', async () => {
    const page = await context.newPage();
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
    await open(page, request);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe(request.state);
    await expect(exchange(url, request)).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('refresh rotates the refresh token; reusing the old one revokes the grant', async () => {
    const { url, request } = await signIn(context, 'openid email');
    const tokens = await exchange(url, request);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('openid email');
    expect((await gql(server, refreshed.access_token, VIEWER)).status).toBe(200);

    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Reuse means theft: everything issued under the grant is dead.
    expect((await gql(server, refreshed.access_token, VIEWER)).status).toBe(401);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a revoked access token gets 401 at /graphql', async () => {
    const { url, request } = await signIn(context, 'openid');
    const tokens = await exchange(url, request);
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(200);
    await oidc.tokenRevocation(config, tokens.access_token);
    const after = await gql(server, tokens.access_token, VIEWER);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('RP-initiated logout signs the user out and ends the tokens of the session', async () => {
    const { url, request } = await signIn(context, 'openid email');
    const tokens = await exchange(url, request);
    const page = await context.newPage();
    const state = oidc.randomState();
    await page.goto(
      oidc.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: callback.postLogoutUri,
        state,
      }).href,
    );
    expect(await page.textContent('h1')).toBe('Sign out of Roster?');
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL((u) => u.href.startsWith(callback.postLogoutUri));
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(401);

    // Signed out: the next sign-in asks for the password again.
    await open(page, await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' }));
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
  });

  it('a public client signs in with PKCE and no secret; without PKCE it is refused', async () => {
    const pub = await discover(server.url, publicApp.clientId);
    const page = await context.newPage();
    const request = await authorizationRequest(pub, { redirectUri: callback.redirectUri, scope: 'openid' });
    await open(page, request);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const tokens = await exchange(new URL(page.url()), request, pub);
    expect(tokens.scope).toBe('openid');

    const noPkce = oidc.buildAuthorizationUrl(pub, {
      redirect_uri: callback.redirectUri,
      scope: 'openid',
      state: 'xyz',
    });
    await page.goto(noPkce.href);
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
  });
});

describe('unhappy paths', () => {
  let context: BrowserContext;
  beforeEach(async () => {
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context.close();
  });

  it('a wrong password and an unknown email get the same message and no session', async () => {
    const page = await context.newPage();
    await open(page, await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' }));
    await signInOnPage(page, user.email!, 'wrong password');
    const wrong = await page.getByRole('alert').textContent();
    await signInOnPage(page, 'nobody@example.com', PASSWORD);
    const unknown = await page.getByRole('alert').textContent();
    expect(wrong).toBe('The email or password is incorrect.');
    expect(unknown).toBe(wrong);
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('nobody@example.com');
    await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');
  });

  it('a form posted without its CSRF token is refused with 403 and signs nobody in', async () => {
    const page = await context.newPage();
    await open(page, await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' }));
    const action = await page.locator('form').first().getAttribute('action');
    const res = await context.request.post(new URL(action!, server.url).href, {
      form: { email: user.email!, password: PASSWORD },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('This form has expired');
    // A forged token fares no better.
    const forged = await context.request.post(new URL(action!, server.url).href, {
      form: { email: user.email!, password: PASSWORD, _csrf: 'a'.repeat(64) + '.' + 'b'.repeat(64) },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
  });

  it('a redirect URI that is not registered gets our error page, not a redirect', async () => {
    const page = await context.newPage();
    const request = await authorizationRequest(config, { redirectUri: 'https://evil.example/cb', scope: 'openid' });
    const res = await page.goto(request.url.href);
    expect(res!.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(server.url);
    expect(await page.textContent('h1')).toBe('Something went wrong');
    expect(await page.textContent('main')).toContain('has not registered');
    expect(await page.textContent('main')).toContain('invalid_redirect_uri');
    await expect(page.locator('link[rel=stylesheet]').getAttribute('href')).resolves.toBe('/assets/roster.css');
  });

  it('an unknown client gets our error page', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${server.url}/auth?client_id=nope&response_type=code&scope=openid`);
    expect(res!.status()).toBe(400);
    expect(await page.textContent('main')).toContain('not registered with Roster');
  });

  it('a wrong PKCE verifier and a reused code are invalid_grant; reuse also kills the first tokens', async () => {
    const { url, request } = await signIn(context, 'openid email');
    await expect(exchange(url, { ...request, codeVerifier: oidc.randomPKCECodeVerifier() })).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    const second = await signIn(context, 'openid email');
    const tokens = await exchange(second.url, second.request);
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(200);
    await expect(exchange(second.url, second.request)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await gql(server, tokens.access_token, VIEWER)).status).toBe(401);
  });

  it('repeated failures for one account are slowed down with 429 for everyone asking for it', async () => {
    const page = await context.newPage();
    await open(page, await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' }));
    const action = new URL((await page.locator('form').first().getAttribute('action'))!, server.url).href;
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const attempt = (password: string) =>
      context.request.post(action, {
        form: { _csrf: csrf, email: 'throttled@example.com', password },
        maxRedirects: 0,
      });
    for (let i = 0; i < 10; i += 1) expect((await attempt('nope')).status()).toBe(401);
    const blocked = await attempt('nope');
    expect(blocked.status()).toBe(429);
    expect(Number(blocked.headers()['retry-after'])).toBeGreaterThan(0);
    expect(await blocked.text()).toContain('Too many failed sign-in attempts');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/roster_rejections_total\{reason="login_throttle"\} [1-9]/);
  });
});
