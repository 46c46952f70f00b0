import type { Browser, BrowserContext, Page } from 'playwright-core';
import { escapeHtml } from '../../src/http/pages/html.js';
import { hashPassword } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover } from '../helpers/relying-party.js';

// SERVICE_NAME names the service on every page (title, header, the words that name it) and in the reset mail,
// always as text: markup in it is shown, never run.

const NAME = 'Acme "Events" <script>alert(1)</script>';
const PASSWORD = 'a long and careful passphrase';

let server: TestServer;
let mailbox: Mailbox;
let browser: Browser;
let callback: Callback;
let context: BrowserContext;
let page: Page;
let user: UserRow;

beforeAll(async () => {
  [mailbox, browser, callback] = await Promise.all([startMailbox(), launchBrowser(), startCallback()]);
  server = await startServer({ SMTP_URL: mailbox.url, SERVICE_NAME: `  ${NAME}  ` });
  user = await server.stores.users.create({
    email: 'named@example.com',
    name: 'Nina',
    passwordHash: await hashPassword(PASSWORD),
  });
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await callback?.close();
  await server?.close();
  await mailbox?.close();
});

/** The page as loaded now names the service in its title and header, escaped, and runs no script. */
async function named(): Promise<string> {
  expect(await page.title()).toMatch(new RegExp(` · ${NAME.replace(/[()]/g, '\\$&')}$`));
  expect(await page.locator('header .name').textContent()).toBe(NAME);
  expect(await page.locator('script').count()).toBe(0);
  const markup = await page.content();
  expect(markup).toContain(`<span class="name">${escapeHtml(NAME).replace(/&quot;/g, '"')}</span>`);
  return (await page.textContent('main'))!.replace(/\s+/g, ' ');
}

test('the sign-in and consent pages, and the sign-out pages', async () => {
  const owner = await server.stores.users.create({ email: 'dev@example.com', name: 'Dev' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [callback.redirectUri, callback.postLogoutUri],
  });
  const config = await discover(server.url, made.app.clientId, made.clientSecret!);
  const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
  await page.goto(request.url.href);
  await named();
  await signInOnPage(page, user.email!, PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  const consent = await named();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
    `Badge Printer wants to access your ${NAME} account`,
  );
  expect(consent).toContain(`whether ${NAME} has verified it`);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));

  await page.goto(`${server.url}/session/end?client_id=${made.app.clientId}`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Sign out of ${NAME}?`);
  await named();
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are signed out');
  expect(await named()).toContain(`You have signed out of ${NAME}`);
});

test('the error page', async () => {
  await page.goto(`${server.url}/interaction/nope`);
  await named();
});

test('the account pages, and the credentials page', async () => {
  await page.goto(`${server.url}/account`);
  await named();
  await signInOnPage(page, user.email!, PASSWORD);
  await page.waitForURL(`${server.url}/account`);
  await named();
  await page.getByLabel('Name').fill('Kiosk');
  await page.getByLabel(/Redirect URIs/).fill('https://kiosk.example/cb');
  await page.getByRole('button', { name: 'Register app' }).click();
  expect(await named()).toContain(`${NAME} keeps only their hashes`);
  await page.goto(`${server.url}/account`);
  await page.getByRole('link', { name: 'Delete Kiosk' }).click();
  expect(await named()).toContain(`every sign-in and token ${NAME} issued to it ends`);
});

test('the reset pages, and the reset mail', async () => {
  await page.goto(`${server.url}/account/password/forgot`);
  await named();
  await page.getByLabel('Email').fill(user.email!);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').waitFor();
  await named();
  const mail = await mailbox.next(user.email!);
  expect(mail.subject).toBe(`Reset your ${NAME} password`);
  expect(mail.text).toContain(`your ${NAME} account ${user.email}`);
});

test('the GraphQL explorer page', async () => {
  const res = await fetch(`${server.url}/graphql`, { headers: { Accept: 'text/html' } });
  const markup = await res.text();
  expect(markup).toContain(`<title>${escapeHtml(NAME)} GraphQL explorer</title>`);
  expect(markup).not.toContain('<script>alert(1)');
});
