import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { authorizationRequest, discover } from '../helpers/relying-party.js';

// Every page a person sees, at a phone's width, with the longest names and URIs the forms accept: none may
// scroll sideways.

const WIDTH = 375;
const PASSWORD = 'a long and careful passphrase';
// 60 characters, the most SERVICE_NAME allows, in one word: the header must wrap it.
const SERVICE_NAME = 'Nordwestdeutsche-Veranstaltungsregistrierungsgesellschaften';
const LONG_APP = 'Regional Volunteer Coordination and Shift Scheduling Platform for Nonprofit Event Organizers';
const LONG_URIS = (host: string) => [
  `https://${host}/oauth2/callback/provider/roster/very/deeply/nested/path/that/keeps/going?tenant=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`,
  `https://staging.${host}/auth/cb`,
  'http://localhost:53682/callback-for-the-desktop-client-with-a-long-name',
];

let server: TestServer;
let mailbox: Mailbox;
let browser: Browser;
let callback: Callback;
let context: BrowserContext;
let page: Page;
let user: UserRow;
/** Every page measured, by the name the test gives it. */
const measured: string[] = [];

beforeAll(async () => {
  [mailbox, browser, callback] = await Promise.all([startMailbox(), launchBrowser(), startCallback()]);
  server = await startServer({ SMTP_URL: mailbox.url, SERVICE_NAME });
  user = await server.stores.users.create({
    email: 'maximiliane.mustermann-oberhuber@a-very-long-domain-name.example.org',
    name: 'Maximiliane',
    passwordHash: await hashPassword(PASSWORD),
  });
  for (const [i, name] of [LONG_APP, 'Kiosk', `${LONG_APP} (public)`].entries()) {
    await server.stores.apps.create({
      ownerId: user.id,
      name,
      redirectUris: LONG_URIS(`app${i}.a-rather-long-subdomain.example-events-company.com`),
      confidential: i !== 2,
    });
  }
  context = await browser.newContext({ viewport: { width: WIDTH, height: 800 } });
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

/** The page as loaded now fits the viewport's width. */
async function fits(name: string): Promise<void> {
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  if (width > WIDTH) {
    // Name the culprits: the elements reaching past the viewport.
    const wide = await page.evaluate<string>(`[...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > ${WIDTH})
      .map((e) => e.tagName.toLowerCase() + '.' + e.className).join(', ')`);
    throw new Error(`${name} is ${width}px wide at ${WIDTH}px: ${wide}`);
  }
  expect(await page.title()).toContain(SERVICE_NAME);
  measured.push(name);
}

let clientId: string;

test('the interaction pages: sign-in, consent, an error', async () => {
  const owner = await server.stores.users.create({ email: 'dev@example.com', name: 'Dev' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: LONG_APP,
    redirectUris: [callback.redirectUri, callback.postLogoutUri],
  });
  clientId = made.app.clientId;
  const config = await discover(server.url, made.app.clientId, made.clientSecret!);
  const request = await authorizationRequest(config, {
    redirectUri: callback.redirectUri,
    scope: 'openid email profile',
  });
  await page.goto(request.url.href);
  await fits('interaction sign-in');
  await signInOnPage(page, user.email!, PASSWORD);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  await fits('consent');
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));

  await page.goto(`${server.url}/auth?client_id=${'x'.repeat(120)}&response_type=code&scope=openid`);
  await fits('error');
});

test('the account pages with several apps, long names and long redirect URIs', async () => {
  await page.goto(`${server.url}/account`);
  await fits('account sign-in');
  await signInOnPage(page, user.email!, PASSWORD);
  await page.waitForURL(`${server.url}/account`);
  // The apps and authorizations tables (the recent activity below them is the audit tests' concern).
  expect(await page.locator('table:not(#recent-activity) tr').count()).toBe(1 + 3 + 1 + 1);
  await fits('dashboard');

  await page.getByRole('link', { name: `Edit redirect URIs of ${LONG_APP}`, exact: true }).click();
  await fits('edit redirect URIs');
  await page.getByLabel(/Redirect URIs/).fill(`${LONG_URIS('x.example')[0]}\nnot-a-uri-${'x'.repeat(80)}`);
  await page.getByRole('button', { name: 'Save redirect URIs' }).click();
  await page.getByRole('alert').waitFor();
  await fits('edit redirect URIs, refused');

  for (const [link, name] of [
    [`Revoke ${LONG_APP}`, 'confirm revoke'],
    ['New client secret', 'confirm new secret'],
    ['New app token', 'confirm new token'],
    [`Delete ${LONG_APP}`, 'confirm delete'],
  ] as const) {
    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: link, exact: true }).first().click();
    await page.getByRole('link', { name: 'Cancel' }).waitFor();
    await fits(name);
  }
  await page.getByRole('button', { name: `Delete ${LONG_APP}` }).click();
  await page.waitForURL(/done=deleted/);
  await fits('dashboard after a delete');

  await page.getByLabel('Name').fill(`${LONG_APP} ${LONG_APP}`.slice(0, 200));
  await page.getByLabel(/Redirect URIs/).fill(LONG_URIS('new.example').join('\n'));
  await page.getByRole('button', { name: 'Register app' }).click();
  await page.locator('#client-secret').waitFor();
  await fits('credentials');
});

test('the webhook pages with long URLs, every type, a disabled webhook and its deliveries', async () => {
  const [first] = await server.stores.apps.listByOwner(user.id);
  const longUrl = `${LONG_URIS('hooks.example')[0]}&and=${'x'.repeat(120)}`;
  const kept = await server.services.webhooks.create({ appId: first!.id, url: longUrl, event: undefined });
  await server
    .db('webhooks')
    .where({ id: kept.webhook.id })
    .update({
      enabled: false,
      disabled_reason: `every attempt failed for 5 d; the last: TLS certificate does not name the host ${'y'.repeat(80)}`,
    });
  await server.stores.deliveries.queuePing(kept.webhook.id, `msg_ping_${'z'.repeat(24)}`);
  await page.goto(`${server.url}/account`);
  await page.getByRole('link', { name: `Webhooks of ${first!.name}`, exact: true }).click();
  await fits('webhooks');
  await page.getByLabel(/^URL/).fill(`https://${'a'.repeat(60)}.example/not a url`);
  await page.getByRole('checkbox', { name: /registrant\.updated/ }).check();
  await page.getByLabel(/^Event/).fill('no-such-event-with-a-rather-long-slug-that-goes-on-and-on');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByRole('alert').waitFor();
  await fits('webhooks, refused');
  await page.getByLabel(/^URL/).fill(longUrl);
  await page.getByLabel(/^Event/).fill('');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.locator('#webhook-secret').waitFor();
  await fits('webhook secret');
  await page.goto(`${server.url}/account/webhooks/${kept.webhook.id}`);
  await fits('webhook deliveries');
  await page
    .getByRole('link', { name: `Delete webhook ${kept.webhook.id}` })
    .first()
    .click();
  await page.getByRole('link', { name: 'Cancel' }).waitFor();
  await fits('confirm webhook delete');
});

test('the sign-out pages', async () => {
  await page.goto(`${server.url}/session/end?client_id=${clientId}`);
  await page.getByRole('button', { name: 'Yes, sign me out' }).waitFor();
  await fits('sign-out');
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
  await fits('signed out');
});

test('the password reset pages', async () => {
  const forgot = `${server.url}/account/password/forgot`;
  await page.goto(forgot);
  await fits('forgot password');
  await page.getByLabel('Email').fill(user.email!);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').waitFor();
  await fits('reset mail sent');
  const link = /https?:\/\/\S+\/account\/password\/reset\?token=[\w.-]+/.exec(
    (await mailbox.next(user.email!)).text,
  )![0];
  await page.goto(link);
  await fits('choose a new password');
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('New password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await page.getByRole('status').waitFor();
  await fits('password changed');
  await page.goto(link);
  await fits('invalid link');
});

test('each page was measured', () => {
  expect(measured).toHaveLength(25);
});
