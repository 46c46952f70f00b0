import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword, sha256 } from '../../src/lib/secrets.js';
import { RESET_LIMITS } from '../../src/services/reset-throttle.js';
import type { UserRow } from '../../src/stores/types.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { capturedLog } from '../helpers/log-lines.js';
import { authorizationRequest, discover, exchangeCode } from '../helpers/relying-party.js';

const OLD_PASSWORD = 'the old and forgotten one';
const NEW_PASSWORD = 'a brand new passphrase';
const FORGOT = '/account/password/forgot';
const RESET = '/account/password/reset';

let server: TestServer;
let mailbox: Mailbox;
let browser: Browser;
let callback: Callback;
let context: BrowserContext;
let page: Page;
let user: UserRow;
let count = 0;

beforeAll(async () => {
  [mailbox, browser, callback] = await Promise.all([startMailbox(), launchBrowser(), startCallback()]);
  // TRUST_PROXY lets the throttle tests speak from addresses of their own (X-Forwarded-For).
  server = await startServer({
    SMTP_URL: mailbox.url,
    MAIL_FROM: 'Roster <no-reply@roster.test>',
    TRUST_PROXY: 'loopback',
  });
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
  await mailbox?.close();
});

beforeEach(async () => {
  count += 1;
  user = await server.stores.users.create({
    email: `reset${count}@example.com`,
    name: 'Rita Reset',
    passwordHash: await hashPassword(OLD_PASSWORD),
  });
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
});

afterEach(async () => {
  await context.close();
});

/** The reset link in a caught mail. */
const linkIn = (text: string) => /https?:\/\/\S+\/account\/password\/reset\?token=[\w.-]+/.exec(text)![0];

/** A form's CSRF field and cookie, fetched as a browser would, for requests made without one. */
async function formSession(path: string, ip: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { 'X-Forwarded-For': ip } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { csrf, cookie };
}

async function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function askForReset(email: string, ip: string) {
  const { csrf, cookie } = await formSession(FORGOT, ip);
  return post(FORGOT, { _csrf: csrf, email }, { Cookie: cookie, 'X-Forwarded-For': ip });
}

async function setNewPassword(link: string, password = NEW_PASSWORD, again = password) {
  await page.goto(link);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('New password again').fill(again);
  await page.getByRole('button', { name: 'Set new password' }).click();
}

async function signInToAccount(email: string, password: string) {
  await page.goto(`${server.url}/account`);
  await signInOnPage(page, email, password);
}

const signedIn = async () => (await page.textContent('main'))!.includes('Signed in as');

const roster = (...args: string[]) => cli(server.config.databaseUrl, args, '', { BASE_URL: server.url });

let ipCount = 0;
const freshIp = () => `203.0.113.${++ipCount}`;

describe('reset by email, in a real browser', () => {
  it('from the login page: mails a one-time link under BASE_URL; the new password works, the old does not, and every session ends', async () => {
    // Before: a refresh token at an app and an open account-page session, as someone holding the old password would.
    const owner = await server.stores.users.create({ email: `owner${count}@example.com`, name: 'Owner' });
    const made = await server.stores.apps.create({
      ownerId: owner.id,
      name: 'Door App',
      redirectUris: [callback.redirectUri],
    });
    const config = await discover(server.url, made.app.clientId, made.clientSecret!);
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' });
    await page.goto(request.url.href);
    await signInOnPage(page, user.email!, OLD_PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
    const tokens = await exchangeCode(config, page.url(), request);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const thief = await browser.newContext();
    const thiefPage = await thief.newPage();
    await thiefPage.goto(`${server.url}/account`);
    await signInOnPage(thiefPage, user.email!, OLD_PASSWORD);
    await thiefPage.waitForURL(`${server.url}/account`);
    expect(await thiefPage.textContent('main')).toContain('Signed in as');

    // The OIDC login page links to the form.
    await context.clearCookies();
    const again = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid' });
    await page.goto(again.url.href);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${server.url}${FORGOT}`);
    await page.getByLabel('Email').fill(user.email!.toUpperCase());
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('If an account uses that address');

    const mail = await mailbox.next(user.email!);
    expect(mail.text).toMatch(/^From: Roster <no-reply@roster\.test>/m);
    expect(mail.text).toMatch(/^Subject: Reset your Roster password/m);
    const link = linkIn(mail.text);
    expect(link.startsWith(`${server.url}${RESET}?token=`)).toBe(true);
    // Only the hash of the secret is stored.
    const secret = new URL(link).searchParams.get('token')!.split('.')[1]!;
    const rows = await server.db('password_resets').where({ user_id: user.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash).toBe(sha256(secret));
    expect(JSON.stringify(rows)).not.toContain(secret);

    await setNewPassword(link);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Sign in with your new password');

    // Every session and refresh token of the user has ended.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await thiefPage.goto(`${server.url}/account`);
    await expect(thiefPage.getByLabel('Password').count()).resolves.toBe(1);
    await thief.close();

    // The old password fails, the new one signs in.
    await signInToAccount(user.email!, OLD_PASSWORD);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The email or password is incorrect.');
    await signInOnPage(page, user.email!, NEW_PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await signedIn()).toBe(true);

    // A second use of the link fails, on the page and on a replayed form.
    const second = await page.goto(link);
    expect(second!.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('expired, was used already');
  });

  it('the account sign-in page links to the form; passwords that differ or are short are refused and the link still works', async () => {
    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(user.email!);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    const link = linkIn((await mailbox.next(user.email!)).text);

    await setNewPassword(link, NEW_PASSWORD, `${NEW_PASSWORD}!`);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The two passwords differ.');
    // The browser would refuse a short one itself (minlength): send it as a form would without that check.
    await page.goto(link);
    await page.locator('#password').evaluate((el) => el.removeAttribute('minlength'));
    await page.locator('#confirmation').evaluate((el) => el.removeAttribute('minlength'));
    await page.locator('#password').fill('short');
    await page.locator('#confirmation').fill('short');
    const refused = page.waitForResponse((r) => r.url().endsWith(RESET) && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Set new password' }).click();
    expect((await refused).status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The password must be at least 8 characters.');

    await setNewPassword(link);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Sign in with your new password');
    await signInToAccount(user.email!, NEW_PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await signedIn()).toBe(true);
  });

  it('an expired link fails', async () => {
    await askForReset(user.email!, freshIp());
    const link = linkIn((await mailbox.next(user.email!)).text);
    await server
      .db('password_resets')
      .where({ user_id: user.id })
      .update({ expires_at: Date.now() - 1 });
    const res = await page.goto(link);
    expect(res!.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('expired');
    expect(await page.getByLabel('New password again').count()).toBe(0);
  });

  it('a form opened before the link expired cannot set the password after', async () => {
    await askForReset(user.email!, freshIp());
    const link = linkIn((await mailbox.next(user.email!)).text);
    await page.goto(link);
    await server
      .db('password_resets')
      .where({ user_id: user.id })
      .update({ expires_at: Date.now() - 1 });
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('expired');
    await signInToAccount(user.email!, OLD_PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await signedIn()).toBe(true);
  });
});

describe('no account enumeration, throttling, failures', () => {
  it('an unknown address gets the same answer and no mail', async () => {
    const known = await askForReset(user.email!, freshIp());
    const unknown = await askForReset(`nobody${count}@example.com`, freshIp());
    expect(unknown.status).toBe(known.status);
    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe(known.text);
    await mailbox.next(user.email!);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailbox.mails.some((m) => m.to.includes(`nobody${count}@example.com`))).toBe(false);
  });

  it(`answers 429 with Retry-After after ${RESET_LIMITS.perAccount.points} requests for one address, known or not`, async () => {
    for (const email of [user.email!, `ghost${count}@example.com`]) {
      for (let i = 0; i < RESET_LIMITS.perAccount.points; i += 1) {
        expect((await askForReset(email, freshIp())).status).toBe(200);
      }
      const refused = await askForReset(email.toUpperCase(), freshIp());
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.text).toContain('Too many reset requests');
    }
  });

  it(`answers 429 after ${RESET_LIMITS.perIp.points} requests from one client address`, async () => {
    const ip = freshIp();
    for (let i = 0; i < RESET_LIMITS.perIp.points; i += 1) {
      expect((await askForReset(`spray${count}-${i}@example.com`, ip)).status).toBe(200);
    }
    expect((await askForReset(`spray${count}-last@example.com`, ip)).status).toBe(429);
    // Another address is not held up by it.
    expect((await askForReset(`spray${count}-last@example.com`, freshIp())).status).toBe(200);
  });

  it('refuses a form without its CSRF field: no mail, no password change', async () => {
    const ip = freshIp();
    const { cookie } = await formSession(FORGOT, ip);
    const res = await post(FORGOT, { email: user.email! }, { Cookie: cookie, 'X-Forwarded-For': ip });
    expect(res.status).toBe(403);
    expect(res.text).toContain('This form has expired');

    const link = (await roster('user', 'reset-link', '--user', user.uid, '--json')).json.url as string;
    const token = new URL(link).searchParams.get('token')!;
    const form = await fetch(link);
    const formCookie = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const noCsrf = await post(
      RESET,
      { token, password: NEW_PASSWORD, confirmation: NEW_PASSWORD },
      { Cookie: formCookie },
    );
    expect(noCsrf.status).toBe(403);
    const wrongCsrf = await post(
      RESET,
      { token, password: NEW_PASSWORD, confirmation: NEW_PASSWORD, _csrf: 'forged' },
      { Cookie: formCookie },
    );
    expect(wrongCsrf.status).toBe(403);
    expect((await server.stores.users.findById(user.id))!.passwordHash).toBe(user.passwordHash);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailbox.mails.filter((m) => m.to.includes(user.email!))).toHaveLength(0);
  });

  it('huge, odd or forged tokens get the same 400 page, never a 5xx', async () => {
    const issued = (await roster('user', 'reset-link', '--user', user.uid, '--json')).json.url as string;
    const [id, secret] = new URL(issued).searchParams.get('token')!.split('.') as [string, string];
    const forged = `${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const query of [
      `token=${'x'.repeat(8000)}`,
      'token[]=a&token[]=b',
      'token[a]=b',
      'token=',
      '',
      'token=%00%ff',
      `token=${id}.${'A'.repeat(43)}`,
      `token=${forged}`,
      `token=${encodeURIComponent(`${id}.${secret}<script>`)}`,
    ]) {
      const res = await fetch(`${server.url}${RESET}?${query}`);
      expect([query.slice(0, 20), res.status]).toEqual([query.slice(0, 20), 400]);
      expect(await res.text()).toContain('This link does not work');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    }
    const posted = await post(RESET, { token: 'y'.repeat(5000), password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(posted.status).toBe(400);
    // The real one still works.
    expect((await fetch(issued)).status).toBe(200);
  });

  it('a deactivated user gets no mail, and a link issued before is refused', async () => {
    const link = (await roster('user', 'reset-link', '--user', user.email!, '--json')).json.url as string;
    await roster('user', 'set-state', '--user', user.uid, '--state', 'deactivated');
    expect((await fetch(link)).status).toBe(400);
    expect((await askForReset(user.email!, freshIp())).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mailbox.mails.filter((m) => m.to.includes(user.email!))).toHaveLength(0);
    const refused = await roster('user', 'reset-link', '--user', user.uid);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^roster: user \S+ is deactivated\n$/);
  });

  it('pages carry the page headers', async () => {
    const res = await fetch(`${server.url}${FORGOT}`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('roster user reset-link', () => {
  it('prints a link the user follows to set a password (--json and text)', async () => {
    const before = Date.now();
    const res = await roster('user', 'reset-link', '--user', user.email!, '--json');
    expect(res.code).toBe(0);
    expect(Object.keys(res.json).sort()).toEqual(['expires_at', 'url']);
    const expiresAt = Date.parse(res.json.expires_at as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 60 * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 60 * 1000);
    const url = res.json.url as string;
    expect(url.startsWith(`${server.url}${RESET}?token=`)).toBe(true);

    const text = await roster('user', 'reset-link', '--user', user.uid);
    expect(text.stdout).toMatch(/^http:\/\/\S+\/account\/password\/reset\?token=\S+\n\(works once, until \S+Z\)\n$/);

    await setNewPassword(url);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Sign in with your new password');
    // Setting the password ended the other link too.
    expect((await fetch(linkIn(text.stdout))).status).toBe(400);
    await signInToAccount(user.email!, NEW_PASSWORD);
    await page.waitForURL(`${server.url}/account`);
    expect(await signedIn()).toBe(true);
  });

  it('names an unknown user in one line', async () => {
    const res = await roster('user', 'reset-link', '--user', 'nobody@example.com');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('roster: no user with email nobody@example.com\n');
  });
});

describe('other configurations', () => {
  it('without SMTP_URL the form says reset by email is not available here', async () => {
    const plain = await startServer();
    try {
      const res = await fetch(`${plain.url}${FORGOT}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('not available here. Ask an administrator');
      expect(text).not.toContain('name="email"');
      const posted = await fetch(`${plain.url}${FORGOT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'someone@example.com' }),
      });
      expect(posted.status).toBe(503);
      expect(await posted.text()).toContain('not available here');
    } finally {
      await plain.close();
    }
  });

  it('a mail that cannot be sent is logged and the answer is the same', async () => {
    const { logger, lines } = capturedLog('error');
    // Nothing listens on port 9 (discard) on the test machine: the connection is refused.
    const broken = await startServer({ SMTP_URL: 'smtp://127.0.0.1:9' }, { logger });
    try {
      const person = await broken.stores.users.create({ email: 'lost@example.com', name: 'Lost' });
      const page1 = await fetch(`${broken.url}${FORGOT}`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page1.text())![1]!;
      const cookie = page1.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const res = await fetch(`${broken.url}${FORGOT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams({ _csrf: csrf, email: person.email! }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('If an account uses that address');
      const deadline = Date.now() + 5000;
      while (!JSON.stringify(lines).includes('password reset mail not sent') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(JSON.stringify(lines)).toContain('password reset mail not sent');
    } finally {
      await broken.close();
    }
  });
});
