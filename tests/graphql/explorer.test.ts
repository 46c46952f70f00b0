import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { useSeededServer } from '../helpers/fixtures.js';

// /graphql in a browser with no internet: Sandbox's CDN is out of reach, so the page falls back to GraphiQL
// served by Roster itself, where a developer sets the Authorization header and runs the canonical query.

const CANONICAL_QUERY =
  '{ event(slug: "roster-launch") { name registrations(first: 5) { totalCount nodes { registrant { name email } } } } }';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const t = useSeededServer();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  const { stores } = t.server;
  const launch = await stores.events.create({
    slug: 'roster-launch',
    name: 'Roster Launch',
    organizerIds: [t.fx.organizer.id],
  });
  for (const r of t.fx.registrants.slice(0, 2)) await stores.registrations.create(launch.id, r.id);
});
afterAll(() => browser?.close());

/** The text of the CodeMirror editor under `selector` (its API sees every line, the DOM only the visible ones). */
const editorText = (selector: string) =>
  `document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.getValue()`;

test('offline, /graphql opens local GraphiQL, which runs the canonical query with the Authorization header', async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const blocked: string[] = [];
  const requested: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') {
      requested.push(url.pathname);
      return route.continue();
    }
    blocked.push(url.href);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });

  const res = await page.goto(`${t.server.url}/graphql`);
  expect(res?.status()).toBe(200);
  await page.waitForSelector('body[data-explorer="graphiql"] .graphiql-container');
  // Sandbox was tried first, from Apollo's CDN, and nothing else left the machine.
  expect(blocked).toEqual([expect.stringMatching(/^https:\/\/embeddable-sandbox\.cdn\.apollographql\.com\//)]);
  expect(requested).toEqual(expect.arrayContaining([expect.stringMatching(/\/graphiql\.js$/)]));

  await page.getByRole('button', { name: 'Headers' }).click();
  await page.locator('.graphiql-editor-tool .CodeMirror:visible').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${t.fx.tokens.organizerUser}` }));
  await page.locator('.graphiql-query-editor .CodeMirror').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(CANONICAL_QUERY);
  await page.getByRole('button', { name: /Execute query/ }).click();

  // A locator, not waitForFunction: its polling evals a string, which the page's CSP rightly refuses.
  await page.locator('.graphiql-response').getByText('"totalCount"').waitFor();
  const result = JSON.parse(await page.evaluate<string>(editorText('.graphiql-response'))) as unknown;
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
  expect(violations).toEqual([]);
  await context.close();
});

test('before any token is set, GraphiQL shows the schema from the public SDL and asks /graphql nothing', async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const asked: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return route.abort('internetdisconnected');
    if (url.pathname === '/graphql' && route.request().resourceType() !== 'document') {
      asked.push(`${route.request().method()} ${url.pathname}`);
    }
    return route.continue();
  });
  const page = await context.newPage();
  await page.goto(`${t.server.url}/graphql?explorer=graphiql`);
  await page.waitForSelector('body[data-explorer="graphiql"] .graphiql-container');

  await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
  const docs = page.locator('.graphiql-doc-explorer');
  await docs.getByRole('link', { name: 'Query' }).click();
  // The root's fields, read from schema.graphql: the docs need no token.
  await docs.getByText('viewer', { exact: true }).waitFor();
  for (const field of ['event', 'events', 'changes']) {
    await expect(docs.getByText(field, { exact: true }).count()).resolves.toBeGreaterThan(0);
  }
  await expect(docs.getByText(/Error fetching schema/).count()).resolves.toBe(0);
  // Nothing was sent to /graphql for want of a token, so the result pane holds no error.
  expect(asked).toEqual([]);
  expect(await page.evaluate<string>(editorText('.graphiql-response'))).toBe('');
  await context.close();
});

test('the explorer page allows exactly what it loads; other pages keep their script-free policy', async () => {
  const page = await fetch(`${t.server.url}/graphql`, { headers: { Accept: BROWSER_ACCEPT } });
  const csp = page.headers.get('content-security-policy')!;
  expect(csp).toContain("script-src 'self' https://embeddable-sandbox.cdn.apollographql.com;");
  expect(csp).toContain('frame-src https://sandbox.embed.apollographql.com;');
  expect(csp).toContain("connect-src 'self';");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe');
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  expect(page.headers.get('vary')).toMatch(/Accept/);
  const html = await page.text();
  expect(html).toContain('"runTelemetry":false');
  expect(html).not.toMatch(/<script>/);

  const login = await fetch(`${t.server.url}/account`, { redirect: 'manual' });
  expect(login.headers.get('content-security-policy')).not.toContain('apollographql');
});

test('telemetry is on only when EXPLORER_TELEMETRY=true', async () => {
  const { startServer } = await import('../helpers/harness.js');
  const withTelemetry = await startServer({ EXPLORER_TELEMETRY: 'true' });
  try {
    const res = await fetch(`${withTelemetry.url}/graphql`, { headers: { Accept: BROWSER_ACCEPT } });
    expect(await res.text()).toContain('"runTelemetry":true');
  } finally {
    await withTelemetry.close();
  }
});

test('the assets answer with their types and are cached for good; no other file is served', async () => {
  const html = await (await fetch(`${t.server.url}/graphql`, { headers: { Accept: BROWSER_ACCEPT } })).text();
  const urls = [...html.matchAll(/"(\/graphql\/explorer\/[0-9a-f]+\/[a-z-]+\.(?:js|css))"/g)].map((m) => m[1]!);
  expect(urls.map((u) => u.split('/').pop()).sort()).toEqual([
    'explorer.css',
    'explorer.js',
    'graphiql.css',
    'graphiql.js',
    'graphql-sse.js',
    'react-dom.js',
    'react.js',
  ]);
  for (const url of urls) {
    const res = await fetch(`${t.server.url}${url}`);
    expect(res.status).toBe(200);
    const type = url.endsWith('.css')
      ? /^text\/css; charset=utf-8$/i
      : /^(text|application)\/javascript; charset=utf-8$/i;
    expect(res.headers.get('content-type')).toMatch(type);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
  }
  // Like any other path under /graphql: an API request, which needs a token.
  for (const path of ['nope.js', '..%2Fpackage.json']) {
    const res = await fetch(`${t.server.url}${urls[0]!.replace(/[^/]+$/, path)}`);
    expect(res.status).toBe(401);
  }
});
