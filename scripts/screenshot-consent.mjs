// Renders the consent page of the demo data in headless Chromium and saves docs/consent.png, then the account
// page as a phone shows it (375 px wide) as docs/account-phone.png (for the README).
// Usage: npm run build && node scripts/screenshot-consent.mjs
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { createRoster } from '../dist/roster.js';
import { loadConfig } from '../dist/config.js';
import { createDb, migrate } from '../dist/stores/database.js';
import { DEMO, seedDemo } from '../dist/services/demo-seed.js';

const file = '/tmp/roster-screenshot.sqlite3';
for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}`;
const config = loadConfig({ NODE_ENV: 'test', BASE_URL: url, DATABASE_URL: `sqlite:${file}` }, false);
const db = createDb(config.databaseUrl);
await migrate(db);
const roster = await createRoster({ config, db });
await seedDemo(roster.services);
// A second app, public, with two redirect URIs: the account page shows the list as a phone stacks it.
const organizer = await roster.services.users.findByKey(DEMO.organizerEmail);
await roster.services.apps.create({
  ownerId: organizer.id,
  name: 'Check-in Kiosk',
  redirectUris: ['https://kiosk.example.com/oauth/callback', 'http://localhost:8080/callback'],
  confidential: false,
});
server.on('request', roster.express);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = await browser.newPage({ viewport: { width: 720, height: 760 }, deviceScaleFactor: 1 });
const params = new URLSearchParams({
  client_id: DEMO.clientId,
  response_type: 'code',
  scope: 'openid email profile',
  redirect_uri: DEMO.redirectUri,
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
});
await page.goto(`${url}/auth?${params}`);
await page.getByLabel('Email').fill(DEMO.organizerEmail);
await page.getByLabel('Password').fill(DEMO.password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('button', { name: 'Allow' }).waitFor();
await page.screenshot({ path: 'docs/consent.png', fullPage: true });
console.log('docs/consent.png written');

const phone = await browser.newPage({ viewport: { width: 375, height: 800 }, deviceScaleFactor: 1 });
await phone.goto(`${url}/account`);
await phone.getByLabel('Email').fill(DEMO.organizerEmail);
await phone.getByLabel('Password').fill(DEMO.password);
await phone.getByRole('button', { name: 'Sign in' }).click();
await phone.getByRole('heading', { name: 'Your apps' }).waitFor();
await phone.screenshot({ path: 'docs/account-phone.png', fullPage: true });
console.log('docs/account-phone.png written');
await browser.close();
await roster.close();
server.close();
await db.destroy();
