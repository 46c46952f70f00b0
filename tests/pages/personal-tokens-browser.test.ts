import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import { launchBrowser, signInOnPage } from '../helpers/browser.js';
import { gql } from '../helpers/graphql.js';
import { useSeededServer } from '../helpers/fixtures.js';

// A developer's minute in real headless Chromium: sign in at the account settings, make a personal access
// token, copy it off the page, read the API with it (emails included), see it used, delete it.
const PASSWORD = 'correct horse battery staple';
const t = useSeededServer();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  await t.server.stores.users.update(t.fx.organizer.id, { passwordHash: await hashPassword(PASSWORD) });
});
afterAll(() => browser?.close());

test('create a token at /account/tokens, use it at /graphql with emails, see its last use, delete it', async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await page.goto(`${t.server.url}/account`);
    await signInOnPage(page, 'org@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Manage personal access tokens' }).click();
    await page.getByRole('heading', { name: 'Personal access tokens' }).waitFor();
    await page.getByRole('textbox', { name: /^Name/ }).fill('Badge export');
    await page.getByRole('checkbox', { name: /^email/ }).check();
    await page.getByLabel('Expires after').selectOption('90d');
    await page.getByRole('button', { name: 'Create token' }).click();

    const token = (await page.locator('#personal-token').textContent())!.trim();
    expect(token).toMatch(/^rst_pat_[A-Za-z0-9_-]{20,}$/);
    const query = '{ event(slug: "private-retreat") { registrations(first: 5) { nodes { registrant { email } } } } }';
    const res = await gql(t.server, token, query);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      event: { registrations: { nodes: [{ registrant: { email: 'ann@example.com' } }] } },
    });
    await t.server.services.personalTokenUse.flush();

    await page.getByRole('link', { name: 'Back to personal access tokens' }).click();
    const row = page.locator('#personal-tokens tbody tr', { hasText: 'Badge export' });
    await expect(row.locator('td[data-label="Scopes"]').textContent()).resolves.toContain('openid email');
    const today = new Date().toISOString().slice(0, 10);
    await expect(row.locator('td[data-label="Last used"]').textContent()).resolves.toContain(today);
    const inNinety = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    await expect(row.locator('td[data-label="Expires"]').textContent()).resolves.toContain(inNinety);
    // The page never shows the value again.
    expect(await page.content()).not.toContain(token);

    await row.getByRole('link', { name: /Delete/ }).click();
    await page.getByRole('button', { name: 'Delete Badge export' }).click();
    await page.getByText('The token was deleted').waitFor();
    expect((await gql(t.server, token, query)).status).toBe(401);
    expect(await page.locator('#personal-tokens').count()).toBe(0);
  } finally {
    await context.close();
  }
}, 60_000);
