import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover, type AuthorizationRequest } from '../helpers/relying-party.js';

// Flows through the pages oidc-provider renders itself (form_post, the signed-out logout, an account switch),
// whose inline auto-submit script must run under our CSP.

const PASSWORD = 'correct horse battery staple';

/** A relying party: a real HTTP server that records every request the browser brings it, bodies included. */
interface RelyingParty {
  redirectUri: string;
  postLogoutUri: string;
  received: { method: string; url: string; contentType: string; body: string }[];
  close(): Promise<void>;
}

async function startRelyingParty(): Promise<RelyingParty> {
  const received: RelyingParty['received'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'] ?? '', body });
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Relying party</title><h1>Back at the app: ${req.url?.split('?')[0]}</h1>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    postLogoutUri: `http://127.0.0.1:${port}/logged-out`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let server: TestServer;
let browser: Browser;
let rp: RelyingParty;
let config: oidc.Configuration;
let passwordHash: string;
let user: UserRow;

beforeAll(async () => {
  [server, browser, rp] = await Promise.all([startServer(), launchBrowser(), startRelyingParty()]);
  passwordHash = await hashPassword(PASSWORD);
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'App Owner' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [rp.redirectUri, rp.postLogoutUri],
  });
  config = await discover(server.url, made.app.clientId, made.clientSecret!);
});

let count = 0;
const newUser = () => {
  count += 1;
  return server.stores.users.create({
    email: `ada${count}@example.com`,
    emailVerified: true,
    name: 'Ada',
    passwordHash,
  });
};

beforeEach(async () => {
  user = await newUser();
  rp.received.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await rp?.close();
  await server?.close();
});

/** A browser context that reports every CSP violation and CSP console message on Roster's pages. */
async function watchedContext(options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(20_000);
  const violations: string[] = [];
  const ours = (url: string) => url.startsWith(server.url);
  await context.exposeBinding('reportCspViolation', ({ page }, message: string) => {
    if (ours(page.url())) violations.push(message);
  });
  // Injected by the browser, not by the page: the page's own CSP does not apply to it.
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    window.reportCspViolation(e.effectiveDirective + ' blocked ' + e.blockedURI + ' at ' + e.documentURI))`);
  context.on('console', (message) => {
    const url = message.location().url || message.page()?.url() || '';
    if (/content security policy/i.test(message.text()) && ours(url)) violations.push(message.text());
  });
  return { context, violations };
}

const backAt = (page: Page, uri: string) => page.waitForURL((url) => url.href.startsWith(uri));

/** Signs in and consents; the app's callback gets the authorization response by form_post. */
async function signInWithFormPost(context: BrowserContext, request: AuthorizationRequest) {
  const page = await context.newPage();
  await page.goto(request.url.href);
  await signInOnPage(page, user.email!, PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).click();
  return page;
}

const formPostRequest = () =>
  authorizationRequest(config, {
    redirectUri: rp.redirectUri,
    scope: 'openid email',
    extra: { response_mode: 'form_post' },
  });

/** The token exchange for the POST the app's callback received, as an app would run it. */
function exchangePosted(request: AuthorizationRequest) {
  const posted = rp.received.find((r) => r.method === 'POST' && r.url === '/callback')!;
  const callback = new Request(rp.redirectUri, {
    method: 'POST',
    headers: { 'content-type': posted.contentType },
    body: posted.body,
  });
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: request.codeVerifier,
    expectedNonce: request.nonce,
    expectedState: request.state,
  });
}

describe('response_mode=form_post in a real browser', () => {
  it('posts the code and state to the app, whose exchange gets tokens, with no CSP violation', async () => {
    const { context, violations } = await watchedContext();
    const request = await formPostRequest();
    const page = await signInWithFormPost(context, request);
    await backAt(page, rp.redirectUri);

    const posted = rp.received.filter((r) => r.url === '/callback');
    expect(posted).toHaveLength(1);
    expect(posted[0]!.method).toBe('POST');
    const form = new URLSearchParams(posted[0]!.body);
    expect(form.get('code')).toEqual(expect.any(String));
    expect(form.get('state')).toBe(request.state);
    const tokens = await exchangePosted(request);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.scope).toBe('openid email');
    expect(tokens.claims()?.sub).toEqual(expect.any(String));
    expect(violations).toEqual([]);
    await context.close();
  });

  it('without JavaScript, the Continue button posts the response', async () => {
    const { context } = await watchedContext({ javaScriptEnabled: false });
    const request = await formPostRequest();
    const page = await signInWithFormPost(context, request);
    await page.getByRole('button', { name: 'Continue' }).click();
    await backAt(page, rp.redirectUri);
    const posted = rp.received.find((r) => r.method === 'POST' && r.url === '/callback')!;
    expect(new URLSearchParams(posted.body).get('state')).toBe(request.state);
    expect((await exchangePosted(request)).access_token).toEqual(expect.any(String));
    await context.close();
  });
});

describe('RP-initiated logout in a real browser', () => {
  /** Signs in (query response mode) and returns the ID token the app got. */
  async function signedIn(context: BrowserContext): Promise<string> {
    const request = await authorizationRequest(config, { redirectUri: rp.redirectUri, scope: 'openid' });
    const page = await context.newPage();
    await page.goto(request.url.href);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await backAt(page, rp.redirectUri);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: request.codeVerifier,
      expectedNonce: request.nonce,
      expectedState: request.state,
    });
    await page.close();
    return tokens.id_token!;
  }

  const endSessionUrl = (idToken: string, state: string) =>
    oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: rp.postLogoutUri, state }).href;

  it('confirming returns to the app with its state, and the session is gone', async () => {
    const { context, violations } = await watchedContext();
    const idToken = await signedIn(context);
    const page = await context.newPage();
    const state = oidc.randomState();
    const logoutPage = await page.goto(endSessionUrl(idToken, state));
    expect(logoutPage!.headers()['content-security-policy']).not.toContain('script-src');
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await backAt(page, rp.postLogoutUri);
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);

    const next = await authorizationRequest(config, { redirectUri: rp.redirectUri, scope: 'openid' });
    await page.goto(next.url.href);
    await expect(page.getByLabel('Password').count()).resolves.toBe(1);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('when the Roster session has already ended, the logout still returns to the app', async () => {
    const { context, violations } = await watchedContext();
    const idToken = await signedIn(context);
    await context.clearCookies();
    const page = await context.newPage();
    const state = oidc.randomState();
    await page.goto(endSessionUrl(idToken, state));
    await backAt(page, rp.postLogoutUri);
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('without JavaScript, the signed-out logout offers a Continue button', async () => {
    const { context } = await watchedContext({ javaScriptEnabled: false });
    const idToken = await signedIn(context);
    await context.clearCookies();
    const page = await context.newPage();
    const state = oidc.randomState();
    await page.goto(endSessionUrl(idToken, state));
    await page.getByRole('button', { name: 'Continue' }).click();
    await backAt(page, rp.postLogoutUri);
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);
    await context.close();
  });
});

describe('switching accounts in a real browser', () => {
  it('signing in as someone else (prompt=login) ends the first session and returns to the app as them', async () => {
    const { context, violations } = await watchedContext();
    const first = await authorizationRequest(config, { redirectUri: rp.redirectUri, scope: 'openid' });
    const page = await context.newPage();
    await page.goto(first.url.href);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await backAt(page, rp.redirectUri);

    const other = await newUser();
    const second = await authorizationRequest(config, {
      redirectUri: rp.redirectUri,
      scope: 'openid email',
      extra: { prompt: 'login' },
    });
    await page.goto(second.url.href);
    await signInOnPage(page, other.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await backAt(page, rp.redirectUri);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: second.codeVerifier,
      expectedNonce: second.nonce,
      expectedState: second.state,
    });
    const claims = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(claims.email).toBe(other.email);
    expect(violations).toEqual([]);
    await context.close();
  });
});

describe('the Content-Security-Policy of Roster pages', () => {
  const scriptSrc = (res: Response) =>
    res.headers
      .get('content-security-policy')!
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .find(([name]) => name === 'script-src')
      ?.slice(1);

  it("admits the provider's auto-submit script by its hash, under a nonce that is new each time", async () => {
    const pages = await Promise.all([fetch(`${server.url}/session/end`), fetch(`${server.url}/session/end`)]);
    const nonces = await Promise.all(
      pages.map(async (res) => {
        const body = await res.text();
        const script = /<script>([\s\S]*?)<\/script>/.exec(body)![1]!;
        const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
        expect(scriptSrc(res)).toEqual([expect.stringMatching(/^'nonce-[A-Za-z0-9+/]{22}=='$/), hash]);
        expect(body).toContain('<noscript>');
        return scriptSrc(res)![0];
      }),
    );
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('our own pages run no script: no script-src, so default-src none refuses all', async () => {
    const pages = [
      `${server.url}/interaction/no-such-interaction`, // our error page (Express)
      `${server.url}/auth?client_id=no-such-app&response_type=code&scope=openid`, // our error page (renderError)
      `${server.url}/session/end/success`, // our signed-out page (postLogoutSuccessSource)
    ];
    for (const url of pages) {
      const res = await fetch(url);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none';/);
      expect(scriptSrc(res)).toBeUndefined();
      expect(await res.text()).not.toMatch(/<script/i);
    }
  });
});
