import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { EXPLORER_CLIENT_ID } from '../../src/services/explorer-client.js';
import { launchBrowser, signInOnPage } from '../helpers/browser.js';
import { seedFixtures, useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';

// /graphql in a browser with no internet (so local GraphiQL runs): the explorer signs in as the built-in public
// client through the real login and consent pages, fills the Authorization header itself, and forgets it.

const PASSWORD = 'correct horse battery staple';
const ORGANIZER = 'Org@Example.com';

const t = useSeededServer();
let browser: Browser;

async function prepare(server: TestServer, organizerId: number, registrantIds: number[]) {
  await server.stores.users.setPasswordHash(organizerId, await hashPassword(PASSWORD));
  const launch = await server.stores.events.create({
    slug: 'roster-launch',
    name: 'Roster Launch',
    organizerIds: [organizerId],
  });
  for (const id of registrantIds) await server.stores.registrations.create(launch.id, id);
}

beforeAll(async () => {
  browser = await launchBrowser();
  await prepare(
    t.server,
    t.fx.organizer.id,
    t.fx.registrants.slice(0, 2).map((r) => r.id),
  );
});
afterAll(() => browser?.close());

/** What one browser context did: every URL it asked for or showed, and the token endpoint's answers. */
interface Recorded {
  context: BrowserContext;
  page: Page;
  urls: string[];
  tokenAnswers: Record<string, unknown>[];
  graphqlAuthorizations: string[];
}

/** A context with the internet blocked (Sandbox's CDN included), recording what it did. */
async function offlinePage(): Promise<Recorded> {
  const context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  const urls: string[] = [];
  const tokenAnswers: Record<string, unknown>[] = [];
  const graphqlAuthorizations: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    urls.push(url.href);
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return route.abort('internetdisconnected');
    if (url.pathname === '/graphql' && route.request().method() === 'POST') {
      graphqlAuthorizations.push(route.request().headers().authorization ?? '');
    }
    return route.continue();
  });
  const page = await context.newPage();
  page.on('framenavigated', (frame) => urls.push(frame.url()));
  page.on('response', (res) => {
    if (new URL(res.url()).pathname === '/token' && res.request().method() === 'POST') {
      res.json().then(
        (body: Record<string, unknown>) => tokenAnswers.push(body),
        () => undefined,
      );
    }
  });
  return { context, page, urls, tokenAnswers, graphqlAuthorizations };
}

/** The first value of `read` that `done` accepts, asked every 100 ms; the last one read after `ms`. */
async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text of the CodeMirror editor under `selector` (its API sees every line, the DOM only the visible ones). */
const editorText = (page: Page, selector: string) =>
  page.evaluate<string>(`document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.getValue()`);

const headersText = (page: Page) => editorText(page, '.graphiql-editor-tool .graphiql-editor:not(.hidden)');

async function openExplorer(page: Page, base: string) {
  expect((await page.goto(`${base}/graphql`))?.status()).toBe(200);
  await page.waitForSelector('body[data-explorer="graphiql"] .graphiql-container');
}

/** Sign in → the login page → consent (Allow) → back at the explorer, signed in. */
async function signInThroughExplorer(page: Page, base: string) {
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/interaction/'));
  await signInOnPage(page, ORGANIZER, PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  const consent = await page.locator('main').innerText();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${base}/graphql`);
  await page.waitForSelector('body[data-explorer="graphiql"] .graphiql-container');
  await page.locator('#explorer-status').getByText('Signed in as Olive Organizer').waitFor();
  return consent;
}

async function run(page: Page) {
  await page.locator('.graphiql-response .CodeMirror').evaluate((el) => {
    (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue('');
  });
  await page.getByRole('button', { name: /Execute query/ }).click();
  // The pane fills in one write once the answer is in.
  const text = await eventually(
    () => editorText(page, '.graphiql-response'),
    (value) => /\}\s*$/.test(value),
  );
  return JSON.parse(text) as Record<string, unknown>;
}

const bearer = (headers: string) => {
  const value = (JSON.parse(headers) as Record<string, string>).Authorization ?? '';
  return value.replace(/^Bearer\s*/, '');
};

test('the explorer signs in (login, consent), fills the header, runs the canonical query with emails, and signs out', async () => {
  const base = t.server.url;
  const { context, page, urls, tokenAnswers, graphqlAuthorizations } = await offlinePage();
  await openExplorer(page, base);

  // Before sign-in: the docs work, and the header is the blank one to fill.
  await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
  const docs = page.locator('.graphiql-doc-explorer');
  await docs.getByRole('link', { name: 'Query' }).click();
  await docs.getByText('viewer', { exact: true }).waitFor();
  expect(bearer(await headersText(page))).toBe('');
  expect(await page.locator('#explorer-sign-out').isVisible()).toBe(false);

  const consent = await signInThroughExplorer(page, base);
  // The consent page names the explorer and the scopes it asks.
  expect(consent).toContain('Roster explorer');
  expect(consent).toMatch(/email/i);
  expect(page.url()).toBe(`${base}/graphql`);

  // The header is filled with the token the explorer got from the token endpoint.
  const token = bearer(await headersText(page));
  expect(token).not.toBe('');
  expect(tokenAnswers.map((a) => a.access_token)).toContain(token);
  const granted = tokenAnswers.find((a) => a.access_token === token)!;
  expect(granted.scope).toBe('openid email profile');
  expect(typeof granted.refresh_token).toBe('string');

  // The canonical query (the page's default) runs as the organizer, with emails.
  const result = await run(page);
  expect(result).toEqual({
    data: {
      event: {
        name: 'Roster Launch',
        registrations: {
          totalCount: 2,
          nodes: [
            { registrant: { name: 'Ann Active', email: 'ann@example.com' } },
            { registrant: { name: 'Pat Pending', email: 'pat@example.com' } },
          ],
        },
      },
    },
  });
  expect(graphqlAuthorizations).toEqual([`Bearer ${token}`]);

  // At /graphql the token is a user token at the built-in app.
  const viewer = await gql(t.server, token, '{ viewer { tokenKind app { clientId name } } }');
  expect(viewer.status).toBe(200);
  expect(viewer.body).toMatchObject({
    data: { viewer: { app: { clientId: EXPLORER_CLIENT_ID, name: 'Roster explorer' } } },
  });
  // The user's authorizations list the explorer by name.
  const listed = await t.server.services.grants.listForUser(t.fx.organizer);
  expect(listed).toContainEqual({
    clientId: EXPLORER_CLIENT_ID,
    appName: 'Roster explorer',
    scopes: ['email', 'openid', 'profile'],
  });

  // No token in any URL the browser asked for or showed; the code never reached a server (it was in the fragment).
  const tokens = tokenAnswers.flatMap((a) => [a.access_token, a.refresh_token, a.id_token]).map(String);
  for (const url of urls) for (const secret of tokens) expect(url).not.toContain(secret);
  const callbacks = urls.filter((u) => new URL(u).pathname === '/graphql/explorer/callback');
  expect(callbacks.length).toBeGreaterThan(0);
  for (const url of callbacks) expect(new URL(url).search).toBe('');
  // Nothing in localStorage, and nothing left in sessionStorage either (the round trip's secrets are gone).
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  for (const secret of tokens) expect(stored).not.toContain(secret);
  expect(stored).not.toContain('roster-explorer:sign-in');

  // Sign out: tokens revoked and forgotten, the header blank again, and a run is refused.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.locator('#explorer-status').getByText('Signed out of the explorer').waitFor();
  expect(bearer(await headersText(page))).toBe('');
  const refused = await run(page);
  expect(refused).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  expect(graphqlAuthorizations.at(-1)).not.toContain(token);
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
  const again = await fetch(`${base}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: String(granted.refresh_token),
      client_id: EXPLORER_CLIENT_ID,
    }),
  });
  expect(again.status).toBe(400);
  expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
  // The Roster session itself may be ended too, back to the explorer.
  const endSession = new URL((await page.locator('#explorer-end-session').getAttribute('href'))!);
  expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${base}/graphql`);
  expect(endSession.searchParams.get('id_token_hint')).toBeNull();
  await context.close();
});

test('the explorer refreshes its token before it expires and keeps the header current', async () => {
  const server = await startServer({ ACCESS_TOKEN_TTL: '5' });
  try {
    const fx = await seedFixtures(server);
    await prepare(
      server,
      fx.organizer.id,
      fx.registrants.slice(0, 2).map((r) => r.id),
    );
    const { context, page, tokenAnswers } = await offlinePage();
    await openExplorer(page, server.url);
    await signInThroughExplorer(page, server.url);
    const first = bearer(await headersText(page));
    // A fifth of 5 s before it ends, the explorer trades its refresh token for a new pair.
    expect(
      await eventually(
        () => tokenAnswers.length,
        (n) => n >= 2,
      ),
    ).toBeGreaterThanOrEqual(2);
    const second = await eventually(
      async () => bearer(await headersText(page)),
      (value) => value !== first,
    );
    expect(second).not.toBe(first);
    expect(tokenAnswers.map((a) => a.access_token)).toContain(second);
    const result = await run(page);
    expect(result).toMatchObject({ data: { event: { registrations: { totalCount: 2 } } } });
    await context.close();
  } finally {
    await server.close();
  }
});

test('a callback without this tab’s state signs nobody in, and its fragment leaves the address bar', async () => {
  const base = t.server.url;
  const { context, page, urls } = await offlinePage();
  const iss = encodeURIComponent(base);
  // No sign-in was started here: nothing to match.
  await page.goto(`${base}/graphql/explorer/callback#code=stolen&state=anything&iss=${iss}`);
  await page
    .locator('#explorer-status')
    .getByText(/not started from this page/)
    .waitFor();
  expect(page.url()).toBe(`${base}/graphql`);
  // One was, with another state: a forged answer is refused too, and the started one is forgotten.
  await page.evaluate(() => {
    sessionStorage.setItem(
      'roster-explorer:sign-in',
      JSON.stringify({ state: 'mine', nonce: 'n', verifier: 'v'.repeat(43), search: '' }),
    );
  });
  await page.goto(`${base}/graphql/explorer/callback#code=forged&state=theirs&iss=${iss}`);
  await page
    .locator('#explorer-status')
    .getByText(/not started from this page/)
    .waitFor();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  expect(await page.locator('#explorer-sign-in').isVisible()).toBe(true);
  // No code was traded.
  expect(urls.filter((u) => new URL(u).pathname === '/token')).toEqual([]);
  await context.close();
});

test('the built-in client takes no other redirect URI, no request without PKCE, and no client_credentials', async () => {
  const base = t.server.url;
  const authorize = (params: Record<string, string>) =>
    fetch(
      `${base}/auth?${new URLSearchParams({ client_id: EXPLORER_CLIENT_ID, response_type: 'code', scope: 'openid', state: 's', ...params })}`,
      {
        redirect: 'manual',
      },
    );
  const challenge = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

  const foreign = await authorize({ redirect_uri: 'https://evil.example/graphql/explorer/callback', ...challenge });
  expect(foreign.status).toBe(400);
  expect(foreign.headers.get('location')).toBeNull();
  expect(await foreign.text()).toMatch(/redirect_uri/);

  const withoutPkce = await authorize({ redirect_uri: `${base}/graphql/explorer/callback` });
  expect(withoutPkce.status).toBe(303);
  const answer = new URL(withoutPkce.headers.get('location')!);
  expect(answer.origin + answer.pathname).toBe(`${base}/graphql/explorer/callback`);
  expect(answer.searchParams.get('error')).toBe('invalid_request');
  expect(answer.searchParams.get('error_description')).toMatch(/PKCE/);

  const own = await fetch(`${base}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: EXPLORER_CLIENT_ID }),
  });
  expect(own.status).toBe(400);
  // No token of its own: the grant is not one of its grant types (the provider's code for that is invalid_request).
  expect(await own.json()).toEqual({
    error: 'invalid_request',
    error_description: 'requested grant type is not allowed for this client',
  });

  // Nobody may register an app under its client id.
  await expect(
    t.server.services.apps.create({
      ownerId: t.fx.other.id,
      name: 'Impostor',
      redirectUris: ['http://localhost:3000/cb'],
      clientId: EXPLORER_CLIENT_ID,
    }),
  ).rejects.toThrow(/built in/);
});

test('an explorer token ends with its user’s activation and with the user’s revocation of the explorer', async () => {
  const { stores, services, provider } = t.server;
  const user = await stores.users.create({ email: 'eve@example.com', name: 'Eve Explorer' });
  const mint = async () =>
    (await mintAccessToken(provider, { accountId: user.uid, clientId: EXPLORER_CLIENT_ID, scope: 'openid email' }))
      .access_token;

  const token = await mint();
  const ok = await gql(t.server, token, '{ viewer { tokenKind app { clientId } } }');
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ data: { viewer: { app: { clientId: EXPLORER_CLIENT_ID } } } });
  await services.users.setState(user.uid, 'deactivated');
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(401);
  await services.users.setState(user.uid, 'active');

  // Listed among the user's authorizations, and revoked from there like any app.
  const second = await mint();
  expect((await gql(t.server, second, '{ viewer { tokenKind } }')).status).toBe(200);
  expect((await services.grants.listForUser(user)).map((a) => a.appName)).toEqual(['Roster explorer']);
  await services.grants.revoke(user, EXPLORER_CLIENT_ID);
  expect((await gql(t.server, second, '{ viewer { tokenKind } }')).status).toBe(401);
  expect(await services.grants.listForUser(user)).toEqual([]);
});
