import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { main as clientMain } from '../examples/client/main.js';
import { EventsPageQuery } from '../examples/client/operations.js';
import { execute, RosterError } from '../examples/client/roster.js';
import { main as signInMain } from '../examples/sign-in/main.js';
import { signIn } from '../examples/sign-in/sign-in.js';
import { hashPassword } from '../src/lib/secrets.js';
import { launchBrowser, signInOnPage } from './helpers/browser.js';
import { useSeededServer } from './helpers/fixtures.js';
import { freePort } from './helpers/process.js';

// The examples of examples/README.md, run against the real server: they cannot rot unnoticed.
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);
const t = useSeededServer();

const PUBLIC_MEETUP = [
  'Registrants of public-meetup:',
  '  Ann Active  ann@example.com  active',
  '  Pat Pending  pat@example.com  pending',
  '  Dee Deactivated  dee@example.com  deactivated',
  '  Nora No-Email  (no email)  active',
  '  Otto Other  other@example.com  active',
];

describe('examples/client: generated types, fetch and a bearer token', () => {
  test('prints the events page by page, then the canonical query’s answer', async () => {
    const lines: string[] = [];
    const env = { ROSTER_URL: t.server.url, ROSTER_TOKEN: t.fx.tokens.organizerUser, ROSTER_PAGE_SIZE: '1' };
    await clientMain(env, ['public-meetup'], (line) => lines.push(line));
    expect(lines).toEqual([
      'Events:',
      '  public-meetup  PUBLIC  Public Meetup',
      '  private-retreat  PRIVATE  Private Retreat',
      ...PUBLIC_MEETUP,
    ]);
  });

  test('a generated document pages: endCursor of one page is `after` of the next', async () => {
    const roster = { url: t.server.url, token: t.fx.tokens.organizerUser };
    const first = await execute(roster, EventsPageQuery, { first: 1 });
    expect(first.events.nodes.map((e) => e.slug)).toEqual(['public-meetup']);
    expect(first.events.pageInfo.hasNextPage).toBe(true);
    const second = await execute(roster, EventsPageQuery, { first: 1, after: first.events.pageInfo.endCursor });
    expect(second.events.nodes).toEqual([
      { slug: 'private-retreat', name: 'Private Retreat', visibility: 'PRIVATE', startsAt: null },
    ]);
    expect(second.events.pageInfo.hasNextPage).toBe(false);
  });

  test('another user’s token sees only public events, and Roster’s refusal arrives as a RosterError', async () => {
    const lines: string[] = [];
    const env = { ROSTER_URL: t.server.url, ROSTER_TOKEN: t.fx.tokens.otherUser };
    const done = clientMain(env, ['public-meetup'], (line) => lines.push(line));
    await expect(done).rejects.toBeInstanceOf(RosterError);
    await expect(done).rejects.toMatchObject({ status: 200, errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    expect(lines).toEqual(['Events:', '  public-meetup  PUBLIC  Public Meetup']);
  });

  test('a bad token: the 401 with its code', async () => {
    const done = clientMain({ ROSTER_URL: t.server.url, ROSTER_TOKEN: 'not-a-token' }, [], () => {});
    await expect(done).rejects.toMatchObject({ status: 401, errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  test('the README’s commands: codegen from the live schema URL changes nothing; the built client prints the same', async () => {
    const bin = (name: string) => `${ROOT}node_modules/.bin/${name}`;
    // --check writes nothing; it exits 1 naming the stale files.
    await run(process.execPath, [bin('graphql-codegen'), '--config', 'examples/codegen.ts', '--check'], {
      cwd: ROOT,
      env: { ...process.env, ROSTER_SCHEMA: `${t.server.url}/graphql/schema.graphql` },
    });
    await run(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'examples'], { cwd: ROOT });
    const { stdout } = await run(process.execPath, ['dist/examples/client/main.js', 'public-meetup'], {
      cwd: ROOT,
      env: { ...process.env, ROSTER_URL: t.server.url, ROSTER_TOKEN: t.fx.tokens.organizerUser },
    });
    expect(stdout.trimEnd().split('\n')).toEqual([
      'Events:',
      '  public-meetup  PUBLIC  Public Meetup',
      '  private-retreat  PRIVATE  Private Retreat',
      ...PUBLIC_MEETUP,
    ]);
  }, 120_000);
});

describe('examples/sign-in: openid-client, authorization code + PKCE, in a real browser', () => {
  const PASSWORD = 'correct horse battery staple';
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
    await t.server.stores.users.setPasswordHash(t.fx.organizer.id, await hashPassword(PASSWORD));
  });
  afterAll(() => browser?.close());

  /** A new app of the organizer whose redirect URI is a free local port, as a developer registers one. */
  async function registerApp(confidential: boolean) {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const made = await t.server.stores.apps.create({
      ownerId: t.fx.organizer.id,
      name: 'Terminal Sign-in',
      redirectUris: [redirectUri],
      confidential,
    });
    return { clientId: made.app.clientId, clientSecret: made.clientSecret ?? undefined, redirectUri };
  }

  /** What the user does with the printed URL: opens it, signs in, allows; the browser lands on the example. */
  async function userSignsIn(url: URL): Promise<string> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(url.href);
      await signInOnPage(page, 'org@example.com', PASSWORD);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((at) => at.pathname === '/callback');
      return (await page.textContent('body')) ?? '';
    } finally {
      await context.close();
    }
  }

  test('signIn(): a confidential app gets validated ID token claims and the userinfo of the same subject', async () => {
    const app = await registerApp(true);
    let landed: Promise<string> | undefined;
    const { tokens, claims, userinfo } = await signIn({
      issuer: t.server.url,
      ...app,
      scope: 'openid email profile',
      openInBrowser: (url) => {
        landed = userSignsIn(url);
      },
    });
    await expect(landed).resolves.toBe('Signed in: back to the terminal.');
    expect(tokens.scope).toBe('openid email profile');
    expect(claims).toMatchObject({ iss: t.server.url, aud: app.clientId });
    // Pairwise: the app's own subject for the user, never the user's uid.
    expect(claims.sub).not.toBe(t.fx.organizer.uid);
    expect(userinfo).toMatchObject({
      sub: claims.sub,
      email: 'Org@Example.com',
      email_verified: true,
      name: 'Olive Organizer',
      picture: 'https://example.com/olive.png',
      zoneinfo: 'Europe/Paris',
    });
  });

  test('main(): a public app prints the URL to open, who signed in, and the canonical query’s answer', async () => {
    const app = await registerApp(false);
    const lines: string[] = [];
    let landed: Promise<string> | undefined;
    const env = {
      ROSTER_URL: t.server.url,
      ROSTER_CLIENT_ID: app.clientId,
      ROSTER_REDIRECT_URI: app.redirectUri,
      ROSTER_EVENT: 'public-meetup',
    };
    await signInMain(env, (line) => {
      lines.push(line);
      const url = /^Open this URL in a browser to sign in:\n(\S+)$/.exec(line)?.[1];
      if (url) landed = userSignsIn(new URL(url));
    });
    await expect(landed).resolves.toBe('Signed in: back to the terminal.');
    expect(lines[0]).toMatch(new RegExp(`^Open this URL in a browser to sign in:\\n${t.server.url}/auth\\?`));
    expect(lines.slice(1)).toEqual([
      'Granted scopes: openid email profile',
      expect.stringMatching(/^Signed in as Olive Organizer <Org@Example\.com> \(sub \S+\)$/),
      ...PUBLIC_MEETUP,
    ]);
  });
});
