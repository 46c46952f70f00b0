import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { useSeededServer } from '../helpers/fixtures.js';

// GraphiQL at /graphql runs a subscription the way a developer would: the header and the operation typed into
// its editors, the stream opened at /graphql/stream by graphql-sse's client, each change shown as it comes.

const SUBSCRIPTION = 'subscription { changes(event: "public-meetup") { cursor type eventSlug registrant { name } } }';

const t = useSeededServer();
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/** The text of the CodeMirror editor under `selector` (its API sees every line, the DOM only the visible ones). */
const editorText = (selector: string) =>
  `document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.getValue()`;

/** GraphiQL opened directly, with what the page broke of its CSP collected. */
async function openGraphiQL(): Promise<{ context: BrowserContext; page: Page; violations: string[] }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  expect((await page.goto(`${t.server.url}/graphql?explorer=graphiql`))?.status()).toBe(200);
  await page.waitForSelector('body[data-explorer="graphiql"] .graphiql-container');
  return { context, page, violations };
}

/** Types into GraphiQL's header editor and query editor, each replaced whole. */
async function fill(page: Page, headers: Record<string, string>, query: string): Promise<void> {
  await page.getByRole('button', { name: 'Headers' }).click();
  await page.locator('.graphiql-editor-tool .CodeMirror:visible').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify(headers));
  await page.locator('.graphiql-query-editor .CodeMirror').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(query);
}

const response = async (page: Page) => JSON.parse(await page.evaluate<string>(editorText('.graphiql-response')));

test('a subscription run in GraphiQL streams each change into the result pane as it is committed', async () => {
  const { context, page, violations } = await openGraphiQL();
  await fill(page, { Authorization: `Bearer ${t.fx.tokens.organizerUser}` }, SUBSCRIPTION);

  // The stream's headers come once the subscription has its start: a change committed after them is shown.
  const opened = page.waitForResponse((res) => new URL(res.url()).pathname === '/graphql/stream');
  await page.getByRole('button', { name: /Execute query/ }).click();
  const stream = await opened;
  expect(stream.status()).toBe(200);
  expect(stream.headers()['content-type']).toMatch(/^text\/event-stream/);
  expect(stream.request().method()).toBe('POST');
  expect(stream.request().headers()['authorization']).toBe(`Bearer ${t.fx.tokens.organizerUser}`);

  const { publicEvent, organizer } = t.fx;
  let committed = Date.now();
  await t.server.stores.registrations.create(publicEvent.id, organizer.id);
  // A locator, not waitForFunction: its polling evals a string, which the page's CSP rightly refuses.
  await page.locator('.graphiql-response').getByText('REGISTRATION_CREATED').waitFor({ timeout: 5_000 });
  expect(Date.now() - committed).toBeLessThan(5_000);
  const created = await response(page);
  expect(created).toEqual({
    data: {
      changes: {
        cursor: expect.any(String),
        type: 'REGISTRATION_CREATED',
        eventSlug: 'public-meetup',
        registrant: { name: 'Olive Organizer' },
      },
    },
  });

  // The same stream goes on: the next change replaces the last in the pane.
  committed = Date.now();
  await t.server.stores.registrations.delete(publicEvent.id, organizer.id);
  await page.locator('.graphiql-response').getByText('REGISTRATION_DELETED').waitFor({ timeout: 5_000 });
  expect(Date.now() - committed).toBeLessThan(5_000);
  const deleted = await response(page);
  expect(deleted.data.changes).toMatchObject({ type: 'REGISTRATION_DELETED', registrant: { name: 'Olive Organizer' } });
  expect(deleted.data.changes.cursor).not.toBe(created.data.changes.cursor);

  // Stop ends the request: the stream is closed from the browser's side.
  const closed = page.waitForEvent('requestfailed', (req) => new URL(req.url()).pathname === '/graphql/stream');
  await page.getByRole('button', { name: /Stop query/ }).click();
  await closed;
  await page.getByRole('button', { name: /Execute query/ }).waitFor();
  expect(violations).toEqual([]);
  await context.close();
});

test('a subscription without a token: Roster’s 401 and its error shown in the pane, as a query’s would be', async () => {
  const { context, page, violations } = await openGraphiQL();
  await fill(page, { Authorization: 'Bearer ' }, SUBSCRIPTION);
  const sent: string[] = [];
  page.on('request', (req) => new URL(req.url()).pathname === '/graphql/stream' && sent.push(req.method()));
  const refused = page.waitForResponse((res) => new URL(res.url()).pathname === '/graphql/stream');
  await page.getByRole('button', { name: /Execute query/ }).click();
  expect((await refused).status()).toBe(401);
  await page.locator('.graphiql-response').getByText('UNAUTHENTICATED').waitFor();
  expect(await response(page)).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  // Shown at once, not after graphql-sse's retries: one request, and the button is back to Execute.
  await page.getByRole('button', { name: /Execute query/ }).waitFor();
  expect(sent).toEqual(['POST']);
  expect(violations).toEqual([]);
  await context.close();
});
