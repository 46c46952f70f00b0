import { hashPassword } from '../../src/lib/secrets.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { Jar, authorizationParams, rawRequest } from './sign-in-forms.js';

// Every URL the service hands out comes from BASE_URL: a request's Host, X-Forwarded-Host or
// X-Forwarded-Proto (or an absolute request target) never changes where a browser or an app is sent.
const BASE_URL = 'https://roster.example';
const REDIRECT_URI = 'http://localhost:3000/callback';
const PASSWORD = 'the right password';

const HOSTILE: [string, string, Record<string, string>][] = [
  ['Host', '', { Host: 'evil.test' }],
  ['X-Forwarded-Host', '', { 'X-Forwarded-Host': 'evil.test', 'X-Forwarded-Proto': 'http' }],
  ['both, with a port', '', { Host: 'evil.test:8443', 'X-Forwarded-Host': 'evil.test:8443' }],
  ['an absolute request target', 'http://evil.test', {}],
];

/** Every string in a JSON document that looks like a URL. */
const urlsIn = (value: unknown): string[] =>
  typeof value === 'string'
    ? /^[a-z]+:\/\//i.test(value)
      ? [value]
      : []
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(urlsIn)
      : [];

/** A cookie header from raw Set-Cookie lines. */
const cookieHeader = (lines: string[] | undefined) => (lines ?? []).map((l) => l.split(';')[0]).join('; ');

describe.each([
  ['without TRUST_PROXY', {}],
  ['with TRUST_PROXY=1', { TRUST_PROXY: '1' }],
])('%s', (_name, env) => {
  let server: TestServer;
  let client: { clientId: string; redirectUri: string };

  beforeAll(async () => {
    // Plain HTTP here, HTTPS in BASE_URL: as behind a load balancer that ends TLS.
    server = await startServer({ BASE_URL, ...env });
    const owner = await server.stores.users.create({
      email: 'owner@example.com',
      name: 'Owner',
      passwordHash: await hashPassword(PASSWORD),
    });
    const made = await server.stores.apps.create({ ownerId: owner.id, name: 'Pinned', redirectUris: [REDIRECT_URI] });
    client = { clientId: made.app.clientId, redirectUri: REDIRECT_URI };
  });
  afterAll(() => server.close());

  test.each(HOSTILE)('discovery names only BASE_URL, whatever %s says', async (_what, prefix, headers) => {
    const res = await rawRequest(server.url, `${prefix}/.well-known/openid-configuration`, { headers });
    expect(res.status).toBe(200);
    const urls = urlsIn(JSON.parse(res.body));
    expect(urls.length).toBeGreaterThan(5);
    for (const url of urls) expect(url === BASE_URL || url.startsWith(`${BASE_URL}/`)).toBe(true);
    expect(res.body).not.toContain('evil.test');
  });

  test.each(HOSTILE)(
    'the sign-in goes on at BASE_URL, whatever %s says, with secure cookies',
    async (_what, prefix, headers) => {
      const auth = await rawRequest(server.url, `${prefix}/auth?${authorizationParams(client)}`, { headers });
      expect(auth.status).toBe(303);
      const location = auth.headers.location!;
      expect(new URL(location, BASE_URL).origin).toBe(BASE_URL);
      expect(location).not.toContain('evil.test');
      // BASE_URL is https: the provider's cookies are Secure even though this hop was plain HTTP.
      const cookies = auth.headers['set-cookie']!;
      expect(cookies.length).toBeGreaterThan(0);
      for (const line of cookies) expect(line).toMatch(/;\s*secure/i);

      // Sign in on the page: the provider sends the browser back to the resume URL it built at /auth.
      const jar = new Jar();
      const path = new URL(location, BASE_URL).pathname;
      const page = await fetch(`${server.url}${path}`, { headers: { Cookie: cookieHeader(cookies) } });
      jar.absorb(page);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const login = await rawRequest(server.url, `${prefix}${path}/login`, {
        method: 'POST',
        headers: {
          ...headers,
          Cookie: `${cookieHeader(cookies)}; ${jar.header()}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: csrf, email: 'owner@example.com', password: PASSWORD }).toString(),
      });
      expect(login.status).toBe(303);
      expect(login.headers.location).toMatch(new RegExp(`^${BASE_URL}/auth/`));
    },
  );

  test.each(HOSTILE)('sign-out confirms and lands at BASE_URL, whatever %s says', async (_what, prefix, headers) => {
    const start = await rawRequest(server.url, `${prefix}/session/end`, { headers });
    expect(start.status).toBe(200);
    const action = /<form[^>]*action="([^"]+)"/.exec(start.body)?.[1];
    expect(action).toBe(`${BASE_URL}/session/end/confirm`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(start.body)![1]!;
    const confirm = await rawRequest(server.url, `${prefix}/session/end/confirm`, {
      method: 'POST',
      headers: {
        ...headers,
        Cookie: cookieHeader(start.headers['set-cookie']),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(confirm.status).toBe(303);
    expect(confirm.headers.location).toBe(`${BASE_URL}/session/end/success`);
  });

  test('our own pages redirect by path, never to the Host a request names', async () => {
    const form = await rawRequest(server.url, '/account', { headers: { Host: 'evil.test' } });
    expect(form.body).not.toContain('evil.test');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const login = await rawRequest(server.url, '/account/login', {
      method: 'POST',
      headers: {
        Host: 'evil.test',
        'X-Forwarded-Host': 'evil.test',
        Cookie: cookieHeader(form.headers['set-cookie']),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf, email: 'owner@example.com', password: PASSWORD }).toString(),
    });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/account');
  });
});
