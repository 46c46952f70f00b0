import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/lib/secrets.js';
import type { StoredAudit } from '../../src/stores/audit-store.js';
import type { UserRow } from '../../src/stores/types.js';
import { signedInUser } from '../helpers/account-session.js';
import { launchBrowser, signInOnPage, startCallback, type Callback } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receivers.js';
import { authorizationRequest, discover, exchangeCode } from '../helpers/relying-party.js';

// What the trail records of the flows people go through: sign-in, consent, tokens, the account pages.
const PASSWORD = 'correct horse battery staple';
const WRONG = 'wrong-password-typed-Zq9';

let server: TestServer;
let browser: Browser;
let callback: Callback;
let receiver: Receiver;
let user: UserRow;
let app: { clientId: string; clientSecret: string };

beforeAll(async () => {
  [server, browser, callback, receiver] = await Promise.all([
    startServer(),
    launchBrowser(),
    startCallback(),
    startReceiver((_req, res) => res.writeHead(204).end()),
  ]);
  user = await server.stores.users.create({
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: await hashPassword(PASSWORD),
  });
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'Owner' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Badge Printer',
    redirectUris: [callback.redirectUri],
  });
  app = { clientId: made.app.clientId, clientSecret: made.clientSecret! };
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await receiver?.close();
  await server?.close();
});

const rows = async (): Promise<StoredAudit[]> => server.stores.audit.page({}, 0, 10_000);
const rowsOf = async (action: string) => (await rows()).filter((r) => r.action === action);

describe('the audit trail of sign-in, consent and tokens', () => {
  let tokens: oidc.TokenEndpointResponse;

  it('records a failed and a successful sign-in, the consent and the token issued, refreshed and revoked', async () => {
    const config = await discover(server.url, app.clientId, app.clientSecret);
    const context = await browser.newContext({ userAgent: 'AuditTest/1.0' });
    const page = await context.newPage();
    const request = await authorizationRequest(config, { redirectUri: callback.redirectUri, scope: 'openid email' });
    await page.goto(request.url.href);
    await signInOnPage(page, user.email!, WRONG);
    await page.getByRole('alert').waitFor();
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    tokens = await exchangeCode(config, page.url(), request);
    await context.close();

    const [failed] = await rowsOf('sign_in.failed');
    expect(failed).toMatchObject({
      userId: user.id,
      subject: 'ada@example.com',
      clientId: app.clientId,
      outcome: 'failure',
      count: 1,
      address: '127.0.0.1',
      userAgent: 'AuditTest/1.0',
    });
    const [signedIn] = await rowsOf('sign_in.succeeded');
    expect(signedIn).toMatchObject({ actorType: 'user', actor: user.uid, userId: user.id, clientId: app.clientId });
    const [consent] = await rowsOf('consent.granted');
    expect(consent).toMatchObject({ userId: user.id, clientId: app.clientId, subject: 'openid email' });

    // The provider's events are recorded after its own write: wait for the row rather than race it.
    const eventually = async (action: string, n = 1) => {
      for (let i = 0; i < 100 && (await rowsOf(action)).length < n; i++) await new Promise((r) => setTimeout(r, 20));
      return rowsOf(action);
    };
    const [issued] = await eventually('token.issued');
    expect(issued).toMatchObject({ actorType: 'app', actor: app.clientId, userId: user.id, clientId: app.clientId });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect((await eventually('token.refreshed'))[0]).toMatchObject({ userId: user.id, clientId: app.clientId });

    // The refresh token revoked, with its grant (oidc-provider's grant.revoked).
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    expect((await eventually('token.revoked'))[0]).toMatchObject({ userId: user.id, clientId: app.clientId });
    // An access token revoked on its own (oidc-provider keeps its grant, ends the grant's other tokens).
    const { mintAccessToken } = await import('../../src/oidc/mint-token.js');
    const minted = await mintAccessToken(server.provider, {
      accountId: user.uid,
      clientId: app.clientId,
      scope: 'openid',
    });
    await oidc.tokenRevocation(config, minted.access_token);
    expect((await eventually('token.revoked', 2))[1]).toMatchObject({ userId: user.id, clientId: app.clientId });
  });

  it('never keeps a password, a token or a secret', async () => {
    const text = JSON.stringify(await rows());
    for (const secret of [PASSWORD, WRONG, app.clientSecret, tokens.access_token, tokens.refresh_token!]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('the audit trail of the account pages', () => {
  it('records apps and webhooks created, changed and deleted, and authorizations revoked, by their owner', async () => {
    const { user: owner, session } = await signedInUser(server, 'Wes');
    const made = await session.post('/account/apps', {
      name: 'Audit App',
      redirect_uris: 'https://audit.example/cb',
      type: 'confidential',
    });
    expect(made.status).toBe(201);
    const secret = /rst_cs_[A-Za-z0-9_-]+/.exec(made.text)?.[0];
    expect(secret).toBeDefined();
    const appRow = (await server.stores.apps.listByOwner(owner.id))[0]!;
    const id = appRow.id;
    expect(
      (await session.post(`/account/apps/${id}/edit`, { redirect_uris: 'https://audit.example/cb2' })).status,
    ).toBe(303);
    expect((await session.post(`/account/apps/${id}/secret`, { confirm: 'yes' })).status).toBe(200);
    expect((await session.post(`/account/apps/${id}/token`, { confirm: 'yes' })).status).toBe(200);
    expect((await session.post(`/account/apps/${id}/webhooks`, { url: receiver.url })).status).toBe(201);
    const [webhook] = await server.services.webhooks.list(id);
    expect((await session.post(`/account/webhooks/${webhook!.id}/ping`, {})).status).toBe(303);
    expect((await session.post(`/account/webhooks/${webhook!.id}/enable`, {})).status).toBe(303);
    expect((await session.post(`/account/webhooks/${webhook!.id}/delete`, { confirm: 'yes' })).status).toBe(303);
    expect((await session.post(`/account/apps/${id}/delete`, { confirm: 'yes' })).status).toBe(303);

    const mine = (await rows()).filter((r) => r.actor === owner.uid && r.actorType === 'user');
    expect(mine.map((r) => r.action)).toEqual([
      'sign_in.succeeded',
      'app.created',
      'app.updated',
      'app.secret_rotated',
      'app.token_rotated',
      'webhook.created',
      'webhook.pinged',
      'webhook.enabled',
      'webhook.deleted',
      'app.deleted',
    ]);
    for (const r of mine.slice(1)) expect(r).toMatchObject({ clientId: appRow.clientId, userId: owner.id });
    expect(mine.find((r) => r.action === 'webhook.created')!.subject).toBe(`webhook ${webhook!.id}`);
    // Never the webhook's URL (its query may carry a secret of the receiver's), nor the app's secret.
    const text = JSON.stringify(await rows());
    expect(text).not.toContain(receiver.url);
    expect(text).not.toContain(secret);
  });

  it('records a revoked authorization and a completed password reset, each with its write', async () => {
    const { user: ann, session } = await signedInUser(server, 'Ann');
    const grant = new server.provider.Grant({ accountId: ann.uid, clientId: app.clientId });
    grant.addOIDCScope('openid');
    await grant.save();
    const revoked = await session.post(`/account/authorizations/${app.clientId}/revoke`, { confirm: 'yes' });
    expect(revoked.status).toBe(303);
    expect((await rowsOf('token.revoked')).filter((r) => r.userId === ann.id)).toEqual([
      expect.objectContaining({ actorType: 'user', clientId: app.clientId }),
    ]);

    const link = await server.services.resets.issueLink(ann);
    const token = new URL(link.url).searchParams.get('token')!;
    const newPassword = 'a brand new passphrase 42';
    await server.services.resets.complete(token, newPassword, newPassword, { address: '203.0.113.9' });
    // A link used up cannot be used again, and records nothing more.
    await expect(server.services.resets.complete(token, newPassword, newPassword)).resolves.toBeUndefined();
    const completed = (await rowsOf('password_reset.completed')).filter((r) => r.userId === ann.id);
    expect(completed).toEqual([expect.objectContaining({ address: '203.0.113.9', outcome: 'success' })]);
    const text = JSON.stringify(await rows());
    expect(text).not.toContain(newPassword);
    expect(text).not.toContain(token.split('.')[1]);
  });
});

describe('recent activity on the account page, in a real browser', () => {
  it("shows the user's own sign-ins, consents and tokens, and nothing of another user's", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/account`);
    await signInOnPage(page, user.email!, PASSWORD);
    await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
    const activity = (await page.locator('#recent-activity').textContent())!.replace(/\s+/g, ' ');
    for (const label of [
      'Signed in',
      'Sign-in failed',
      'Allowed an app',
      'Token issued to an app',
      'Token refreshed',
    ]) {
      expect(activity).toContain(label);
    }
    expect(activity).toContain(app.clientId);
    // Wes's and Ann's apps, webhooks and resets are theirs alone.
    expect(activity).not.toMatch(/Registered an app|Password reset|Deleted an app/);
    await context.close();
  });
});
