import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import { launchBrowser, signInOnPage } from '../helpers/browser.js';
import { SEED_QUERY } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// A single-page app on another origin, as a client developer writes one: authorization code + PKCE with a
// public client, the token exchange and the GraphQL query with fetch, cross-origin, in real Chromium.

const PASSWORD = 'correct horse battery staple';

/** The app's one page: starts the flow, or finishes it when it comes back with a code. */
const appPage = (issuer: string, clientId: string, redirectUri: string) => `<!doctype html>
<title>Pocket App</title>
<pre id="result">working</pre>
<script type="module">
const issuer = ${JSON.stringify(issuer)};
const clientId = ${JSON.stringify(clientId)};
const redirectUri = ${JSON.stringify(redirectUri)};
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const show = (value) => { document.getElementById('result').textContent = JSON.stringify(value); };
const params = new URLSearchParams(location.search);
try {
  if (!params.has('code')) {
    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
    sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
    const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    location.assign(issuer + '/auth?' + new URLSearchParams({
      client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid email profile',
      state, code_challenge: challenge, code_challenge_method: 'S256',
    }));
  } else {
    const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce'));
    if (params.get('state') !== state) throw new Error('state mismatch');
    const tokenRes = await fetch(issuer + '/token', {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri,
        client_id: clientId, code_verifier: verifier,
      }),
    });
    const tokens = await tokenRes.json();
    const res = await fetch(issuer + '/graphql', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + tokens.access_token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: ${JSON.stringify(SEED_QUERY)}, variables: { slug: 'cors-meetup' } }),
    });
    show({
      tokenStatus: tokenRes.status,
      status: res.status,
      etag: res.headers.get('ETag'),
      remaining: res.headers.get('X-RateLimit-Remaining'),
      body: await res.json(),
    });
  }
} catch (err) {
  show({ failed: String(err) });
}
</script>`;

let server: TestServer;
let browser: Browser;
let pageServer: Server;
let appOrigin: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  pageServer = createServer();
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(pageServer.address() as { port: number }).port}`;
  const redirectUri = `${appOrigin}/app`;

  const organizer = await server.stores.users.create({
    email: 'olive@example.com',
    emailVerified: true,
    name: 'Olive',
    passwordHash: await hashPassword(PASSWORD),
  });
  const event = await server.stores.events.create({
    slug: 'cors-meetup',
    name: 'CORS Meetup',
    organizerIds: [organizer.id],
  });
  const ann = await server.stores.users.create({ email: 'ann@example.com', name: 'Ann', activationState: 'active' });
  await server.stores.registrations.create(event.id, ann.id);
  const made = await server.stores.apps.create({
    ownerId: organizer.id,
    name: 'Pocket App',
    redirectUris: [redirectUri],
    confidential: false,
  });
  const html = appPage(server.url, made.app.clientId, redirectUri);
  pageServer.on('request', (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
  await server?.close();
});

test('a page on another origin signs in with PKCE, exchanges the code and runs the query with fetch', async () => {
  expect(new URL(appOrigin).origin).not.toBe(new URL(server.url).origin);
  const context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await page.goto(`${appOrigin}/app`);
  await page.waitForURL((url) => url.href.startsWith(server.url));
  await signInOnPage(page, 'olive@example.com', PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((url) => url.href.startsWith(`${appOrigin}/app?`));
  // A string: the predicate runs in the page, whose DOM types this Node project does not load.
  await page.waitForFunction(`document.getElementById('result').textContent !== 'working'`);

  const result = JSON.parse((await page.textContent('#result'))!) as {
    tokenStatus: number;
    status: number;
    etag: string | null;
    remaining: string | null;
    body: { data?: unknown; errors?: unknown };
  };
  expect(result).toMatchObject({ tokenStatus: 200, status: 200 });
  expect(result.body.errors).toBeUndefined();
  expect(result.body.data).toEqual({
    event: {
      registrations: { nodes: [{ registrant: { activationState: 'active', email: 'ann@example.com', name: 'Ann' } }] },
    },
  });
  // Readable from JS only because they are exposed.
  expect(result.etag).toMatch(/^(W\/)?"/);
  expect(result.remaining).toMatch(/^\d+$/);
  await context.close();
});
