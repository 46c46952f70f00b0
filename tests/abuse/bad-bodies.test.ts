import { hashPassword } from '../../src/lib/secrets.js';
import { seedFixtures, type Fixtures } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// Every route that takes input, fed hostile bodies: each answer is a 4xx with a one-line reason and a
// code (JSON for API routes, our HTML error page or the form again for pages), never a 5xx.
const PASSWORD = 'a long and careful passphrase';
let server: TestServer;
let fx: Fixtures;

/** A browser's cookies, by hand: enough for our pages. */
class Jar {
  cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }
  get header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

interface Ctx {
  jar: Jar;
  csrf: string;
}

/** Signs in at /account: the session cookie and the dashboard's CSRF token. */
async function signedIn(): Promise<Ctx> {
  const jar = new Jar();
  const form = await fetch(`${server.url}/account`);
  jar.take(form);
  const login = await fetch(`${server.url}/account/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: jar.header, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text()), email: fx.organizer.email!, password: PASSWORD }),
  });
  expect(login.status).toBe(303);
  jar.take(login);
  const dashboard = await fetch(`${server.url}/account`, { headers: { Cookie: jar.header } });
  jar.take(dashboard);
  return { jar, csrf: csrfOf(await dashboard.text()) };
}

/** A started sign-in: the interaction's cookies and its login form's CSRF token. */
async function interaction(): Promise<Ctx & { uid: string }> {
  const jar = new Jar();
  const params = new URLSearchParams({
    client_id: fx.orgApp.clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: 'http://localhost:3000/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const auth = await fetch(`${server.url}/auth?${params}`, { redirect: 'manual' });
  jar.take(auth);
  const location = auth.headers.get('location')!;
  const page = await fetch(`${server.url}${location}`, { headers: { Cookie: jar.header } });
  jar.take(page);
  expect(page.status).toBe(200);
  return { jar, csrf: csrfOf(await page.text()), uid: location.split('/').pop()! };
}

beforeAll(async () => {
  server = await startServer();
  fx = await seedFixtures(server);
  await server.stores.users.setPasswordHash(fx.organizer.id, await hashPassword(PASSWORD));
});
afterAll(() => server.close());

const FORM = 'application/x-www-form-urlencoded';
interface Hostile {
  name: string;
  type?: string;
  body?: (csrf: string) => string | Buffer;
}
const form = (fields: string) => (csrf: string) => `_csrf=${encodeURIComponent(csrf)}&${fields}`;
const HOSTILE: Hostile[] = [
  { name: 'a JSON body', type: 'application/json', body: (c) => JSON.stringify({ _csrf: c, email: 'a@b.c' }) },
  { name: 'no body at all' },
  { name: 'an empty form', type: FORM, body: () => '' },
  { name: 'a form sent as text/plain', type: 'text/plain', body: form('email=a%40b.c&password=x') },
  { name: 'a form in latin1', type: `${FORM}; charset=latin1`, body: form('email=a%40b.c') },
  { name: 'a form with a gzip encoding it lacks', type: FORM, body: form('email=x') },
  {
    name: 'every field repeated',
    type: FORM,
    body: form(
      'email=a&email=b&password=x&password=y&name=n&name=m&redirect_uris=a&redirect_uris=b&type=x&type=y&scope=a&decision=allow&decision=deny',
    ),
  },
  {
    name: 'bracketed fields',
    type: FORM,
    body: form('email[x]=a&password[]=b&name[a][b]=c&redirect_uris[0]=d&decision[]=allow'),
  },
  { name: 'values of 15 kB', type: FORM, body: form(`email=${'a'.repeat(15_000)}&password=p&name=${'n'.repeat(300)}`) },
  { name: 'a body over the limit', type: FORM, body: form(`email=${'a'.repeat(40_000)}`) },
  { name: 'too many fields', type: FORM, body: form(Array.from({ length: 40 }, (_, i) => `f${i}=x`).join('&')) },
  { name: 'bad percent-encoding', type: FORM, body: form('email=%ZZ%&password=%ff%fe&name=%c3%28') },
  {
    name: 'raw bytes that are not UTF-8',
    type: FORM,
    body: (c) =>
      Buffer.concat([
        Buffer.from(`_csrf=${c}&email=`),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        Buffer.from('&password=x'),
      ]),
  },
  { name: 'a NUL and control characters', type: FORM, body: form('email=a%00b%01c&password=%00&name=%00') },
];

interface Answer {
  status: number;
  type: string;
  text: string;
  ms: number;
}

async function send(
  url: string,
  h: Hostile,
  ctx: { jar?: Jar; csrf?: string } = {},
  extra: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...extra };
  if (ctx.jar) headers.Cookie = ctx.jar.header;
  if (h.type !== undefined) headers['Content-Type'] = h.type;
  if (h.name.includes('gzip')) headers['Content-Encoding'] = 'gzip';
  const started = Date.now();
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers, body: h.body?.(ctx.csrf ?? '') });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: await res.text(),
    ms: Date.now() - started,
  };
}

/** A page's answer: success, or a 4xx page saying why (the form with an alert, or our error page). */
function expectPageAnswer(what: string, a: Answer): void {
  expect({ what, status: a.status < 500, fast: a.ms < 5000 }).toEqual({ what, status: true, fast: true });
  if (a.status < 400) return; // done: a form that needs no field (rotate a secret) ignores the junk
  expect(a.type).toBe('text/html; charset=utf-8');
  const reason = /role="alert">([^<]*)</.exec(a.text)?.[1] ?? /Error: <code>([A-Za-z_]+)<\/code>/.exec(a.text)?.[1];
  expect({ what, reason: reason?.length ? 'given' : a.text.slice(0, 300) }).toEqual({ what, reason: 'given' });
}

/** An API's answer: ours (`errors[0].message` and `.extensions.code`) or OAuth's (`error`, `error_description`). */
function expectApiAnswer(what: string, a: Answer): void {
  expect({ what, status: a.status < 500, fast: a.ms < 5000 }).toEqual({ what, status: true, fast: true });
  if (a.status < 400) return;
  expect(a.type).toMatch(/^application\/json/);
  const body = JSON.parse(a.text) as {
    errors?: { message: string; extensions: { code: string } }[];
    error?: string;
    error_description?: string;
  };
  const reason = body.errors?.[0]?.message ?? body.error_description;
  const code = body.errors?.[0]?.extensions.code ?? body.error;
  expect({ what, reason: /^[^\n]+$/.test(reason ?? ''), code: /^[a-zA-Z_]+$/.test(code ?? '') }).toEqual({
    what,
    reason: true,
    code: true,
  });
}

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

  test('GraphQL, userinfo and the provider: a 4xx with a reason and a code, never a 5xx', async () => {
    const bearer = { Authorization: `Bearer ${fx.tokens.organizerUser}` };
    const basic = {
      Authorization: `Basic ${Buffer.from(`${fx.orgApp.clientId}:${fx.orgApp.clientSecret}`).toString('base64')}`,
    };
    for (const [path, headers] of [
      ['/graphql', bearer],
      ['/openid/userinfo', bearer],
      ['/openid/userinfo', {}],
      ['/token', basic],
      ['/token', {}],
      ['/token/revocation', basic],
      ['/session/end/confirm', {}],
    ] as const) {
      expectApiAnswer(`POST ${path}`, await send(`${server.url}${path}`, h, {}, headers));
    }
  });
});

describe('hostile URLs', () => {
  test.each([
    ['repeated parameters', 'client_id=a&client_id=b&response_type=code&response_type=token&scope=openid'],
    ['invalid percent-encoding', 'client_id=%ZZ&scope=%ff%fe&redirect_uri=%c3%28'],
    ['a NUL', 'client_id=a%00b&response_type=code&scope=openid'],
    ['a 12 kB value', `client_id=${'c'.repeat(12_000)}&response_type=code&scope=openid`],
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
    jar.take(form);
    const login = await fetch(`${server.url}/account/login`, {
      method: 'POST',
      headers: { Cookie: jar.header, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(await form.text()), email: 'org\u0000@example.com', password: 'x' }),
    });
    expect(login.status).toBe(401);
    expect(await login.text()).toContain('The email or password is incorrect.');
  });
});
