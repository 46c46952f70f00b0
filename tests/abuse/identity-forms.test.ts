import { hashPassword } from '../../src/lib/secrets.js';
import { seedFixtures, type Fixtures } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { expectPageAnswer, HOSTILE, send } from './hostile-bodies.js';
import { csrfOf, Jar } from './sign-in-forms.js';

// The sign-in, consent and account pages fed hostile forms and URLs: each answer is the form again or
// our HTML error page, with a one-line reason, never a 5xx. (API routes fed the same bodies: request-bodies.)
const PASSWORD = 'a long and careful passphrase';
let server: TestServer;
let fx: Fixtures;

interface Ctx {
  jar: Jar;
  csrf: string;
}

/** Signs in at /account: the session cookie and the dashboard's CSRF token. */
async function signedIn(): Promise<Ctx> {
  const jar = new Jar();
  const form = await fetch(`${server.url}/account`);
  jar.absorb(form);
  const login = await fetch(`${server.url}/account/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: jar.header(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text()), email: fx.organizer.email!, password: PASSWORD }),
  });
  expect(login.status).toBe(303);
  jar.absorb(login);
  const dashboard = await fetch(`${server.url}/account`, { headers: { Cookie: jar.header() } });
  jar.absorb(dashboard);
  return { jar, csrf: csrfOf(await dashboard.text()) };
}

const authorizationRequest = () =>
  new URLSearchParams({
    client_id: fx.orgApp.clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: 'http://localhost:3000/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });

/** A started sign-in: the interaction's cookies and its login form's CSRF token. */
async function interaction(): Promise<Ctx & { uid: string }> {
  const jar = new Jar();
  const auth = await fetch(`${server.url}/auth?${authorizationRequest()}`, { redirect: 'manual' });
  jar.absorb(auth);
  const location = auth.headers.get('location')!;
  const page = await fetch(`${server.url}${location}`, { headers: { Cookie: jar.header() } });
  jar.absorb(page);
  expect(page.status).toBe(200);
  return { jar, csrf: csrfOf(await page.text()), uid: location.split('/').pop()! };
}

beforeAll(async () => {
  server = await startServer();
  fx = await seedFixtures(server);
  await server.stores.users.setPasswordHash(fx.organizer.id, await hashPassword(PASSWORD));
});
afterAll(() => server.close());

describe.each(HOSTILE.map((h) => [h.name, h] as const))('%s', (_name, h) => {
  test('account pages: the form again or our error page, with the reason; never a 5xx', async () => {
    const ctx = await signedIn();
    const appId = (await server.stores.apps.findByClientId(fx.orgApp.clientId))!.id;
    for (const path of [
      '/account/login',
      '/account/apps',
      `/account/apps/${appId}/secret`,
      `/account/apps/${appId}/token`,
      '/account/apps/999999999/delete',
      '/account/apps/not-a-number/token',
      `/account/authorizations/${fx.orgApp.clientId}/revoke`,
      `/account/authorizations/${'x'.repeat(2000)}/revoke`,
      '/account/authorizations/a%00b/revoke',
      '/account/logout', // last: it may end the session
    ]) {
      expectPageAnswer(`POST ${path.slice(0, 50)}`, await send(`${server.url}${path}`, h, ctx));
    }
    // Signed out, the same forms are a 4xx too.
    expectPageAnswer('POST /account/apps signed out', await send(`${server.url}/account/apps`, h));
  });

  test('sign-in pages: the form again or our error page, with the reason; never a 5xx', async () => {
    for (const action of ['login', 'consent', 'abort']) {
      const ctx = await interaction();
      expectPageAnswer(`POST ${action}`, await send(`${server.url}/interaction/${ctx.uid}/${action}`, h, ctx));
    }
  });
});

describe('interactions', () => {
  test('an interaction URL opened without its browser cookie gets our error page, not a login form', async () => {
    const params = authorizationRequest();
    params.set('scope', 'openid');
    const res = await fetch(`${server.url}/auth?${params}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/interaction\/[\w-]+$/);
    const page = await fetch(`${server.url}${location}`);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await page.text();
    expect(body).toContain('This sign-in request has expired or was started in another browser.');
    expect(body).not.toContain('password');
    // oidc-provider's development login pages are off.
    expect((await fetch(`${server.url}${location}/login`, { method: 'POST' })).status).toBe(400);
  });

  test('an unknown interaction or a bare form post never reaches a 5xx', async () => {
    for (const [method, path] of [
      ['GET', '/interaction/nope'],
      ['POST', '/interaction/nope/login'],
      ['POST', '/interaction/nope/consent'],
      ['POST', '/interaction/nope/abort'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: method === 'POST' ? 'email=a&password=b&_csrf=c' : undefined,
      });
      expect(res.status).toBe(400);
    }
  });
});

describe('hostile URLs', () => {
  test.each([
    ['repeated parameters', 'client_id=a&client_id=b&response_type=code&response_type=token&scope=openid'],
    ['invalid percent-encoding', 'client_id=%ZZ&scope=%ff%fe&redirect_uri=%c3%28'],
    ['a NUL', 'client_id=a%00b&response_type=code&scope=openid'],
    ['a 3 kB value', `client_id=${'c'.repeat(3_000)}&response_type=code&scope=openid`],
    ['bracketed keys', 'client_id[a]=b&scope[]=openid'],
  ])('/auth with %s: our error page, never a 5xx', async (_name, query) => {
    const res = await fetch(`${server.url}/auth?${query}`, { redirect: 'manual' });
    const a = { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), ms: 0 };
    expect(a.status).toBe(400);
    expectPageAnswer(`/auth?${query.slice(0, 40)}`, a);
  });

  test.each([
    ['/interaction/%ff%fe', '/interaction/%ff%fe'],
    ['/interaction/ and a 5,000-character uid', `/interaction/${'u'.repeat(5000)}`],
    ['/account?done=%ff', '/account?done=%ff'],
    ['/account?done=a&done=b', '/account?done=a&done=b'],
    [
      '/session/end?id_token_hint=%ff&post_logout_redirect_uri=%00',
      '/session/end?id_token_hint=%ff&post_logout_redirect_uri=%00',
    ],
    ['/session/end?client_id=a%00b', '/session/end?client_id=a%00b'],
    ['/openid/userinfo?access_token=%ff', '/openid/userinfo?access_token=%ff'],
  ])('GET %s: never a 5xx', async (_label, path) => {
    const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
    expect(res.status).toBeLessThan(500);
  });
});

describe('a NUL in what is looked up (PostgreSQL text cannot hold one)', () => {
  test('an event slug, a client id, a sign-in email: not found, never a 5xx', async () => {
    // A token of its own: the sweeps above rotate and revoke the fixtures'.
    const { appToken } = await server.stores.apps.create({
      ownerId: fx.organizer.id,
      name: 'NUL probe',
      redirectUris: ['https://n.example/cb'],
    });
    const gqlRes = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'query($s: String!) { event(slug: $s) { id } }', variables: { s: 'a\u0000b' } }),
    });
    expect(await gqlRes.json()).toEqual({ data: { event: null } });

    const token = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=x&client_id=a%00b&client_secret=x',
    });
    expect(token.status).toBe(401);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_client');

    const jar = new Jar();
    const form = await fetch(`${server.url}/account`);
    jar.absorb(form);
    const login = await fetch(`${server.url}/account/login`, {
      method: 'POST',
      headers: { Cookie: jar.header(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(await form.text()), email: 'org\u0000@example.com', password: 'x' }),
    });
    expect(login.status).toBe(401);
    expect(await login.text()).toContain('The email or password is incorrect.');
  });
});
