import { signedInUser } from '../helpers/account-session.js';
import { gql } from '../helpers/graphql.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { startMailbox, type Mailbox } from '../helpers/mailbox.js';
import { MAX_PERSONAL_TOKENS } from '../../src/services/personal-token-service.js';
import { sha256 } from '../../src/lib/secrets.js';

// Personal access tokens against the real server: made through the account pages' forms (CSRF and all),
// used at /graphql and userinfo as their user with no app, revoked and ended at once; hostile input refused.
let server: TestServer;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  server = await startServer({ SMTP_URL: mailbox.url, RATE_LIMIT_POINTS: '1000' });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.close();
});

const VIEWER =
  '{ viewer { tokenKind scopes user { name } client { clientId } app { clientId name } personalToken { name expiresAt } } }';
const tokenIn = (text: string) => /id="personal-token" class="secret">(rst_pat_[A-Za-z0-9_-]+)</.exec(text)?.[1];

/** A user signed in at the account pages, and a token made there through the form. */
async function withToken(name: string, fields: Record<string, string | string[]> = {}) {
  const { user, session } = await signedInUser(server, name);
  await session.get('/account/tokens');
  const made = await session.post('/account/tokens', {
    name: `${name}'s script`,
    scope: ['openid', 'email'],
    ...fields,
  });
  expect(made.status).toBe(201);
  const token = tokenIn(made.text);
  expect(token).toBeDefined();
  return { user, session, token: token!, page: made.text };
}

const userinfo = async (token: string) => {
  const res = await fetch(`${server.url}/openid/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('made at /account/tokens, shown once, it acts as its user with no app at /graphql and userinfo', async () => {
  const { user, session, token, page } = await withToken('Petra');
  expect(page).toContain('keeps only its hash');
  // Shown once: the list shows its name and scopes, never the value.
  const list = await session.get('/account/tokens');
  expect(list.text).toContain('Petra&#39;s script');
  expect(list.text).not.toContain(token);

  const res = await gql(server, token, VIEWER);
  expect(res.status).toBe(200);
  const viewer = res.body.data!.viewer as Record<string, unknown>;
  expect(viewer).toMatchObject({
    tokenKind: 'USER',
    scopes: ['openid', 'email'],
    user: { name: 'Petra' },
    client: null,
    app: { clientId: 'personal', name: "Petra's script" },
    personalToken: { name: "Petra's script" },
  });
  // Thirty days by default.
  const expiresAt = Date.parse((viewer.personalToken as { expiresAt: string }).expiresAt);
  expect(Math.abs(expiresAt - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);

  const info = await userinfo(token);
  expect(info.status).toBe(200);
  // No app to hide the user from: the subject is the user's public id.
  expect(info.body).toMatchObject({ sub: user.uid, uid: user.uid, email: user.email });
  expect(info.body).not.toHaveProperty('name'); // profile was not chosen
});

test('the mail tells its user a token was made, naming it and where to revoke it', async () => {
  const { user } = await withToken('Mailed');
  const mail = await mailbox.next(user.email!);
  expect(mail.subject).toContain('personal access token');
  expect(mail.text).toContain("Mailed's script");
  expect(mail.text).toContain(`${server.url}/account/tokens`);
});

test('revoked at the page, it is refused from the next request on, though it was just used (and cached)', async () => {
  const { session, token } = await withToken('Rita');
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  const id = /\/account\/tokens\/(\d+)\/delete/.exec((await session.get('/account/tokens')).text)![1]!;
  // The confirmation first; a POST without it asks again and deletes nothing.
  expect((await session.post(`/account/tokens/${id}/delete`, {})).status).toBe(200);
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  const done = await session.post(`/account/tokens/${id}/delete`, { confirm: 'yes' });
  expect(done.status).toBe(303);
  expect((await gql(server, token, VIEWER)).status).toBe(401);
  expect((await userinfo(token)).status).toBe(401);
});

test('another user’s token cannot be seen or deleted, and a form without its CSRF token changes nothing', async () => {
  const { token } = await withToken('Owner');
  const { session: intruder } = await signedInUser(server, 'Intruder');
  const [victim] = await server.db('personal_tokens').orderBy('id', 'desc').limit(1).pluck('id');
  await intruder.get('/account/tokens');
  expect((await intruder.get(`/account/tokens/${victim}/delete`)).status).toBe(404);
  expect((await intruder.post(`/account/tokens/${victim}/delete`, { confirm: 'yes' })).status).toBe(404);
  expect((await intruder.post('/account/tokens', { name: 'forged', scope: 'openid', _csrf: null })).status).toBe(403);
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  expect(await server.db('personal_tokens').where({ name: 'forged' }).first()).toBeUndefined();
});

test('expired, or its user deactivated, it is refused; reactivated before it expires, it works again', async () => {
  const { user, token } = await withToken('Ending');
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  await server.stores.users.update(user.id, { activationState: 'deactivated' });
  expect((await gql(server, token, VIEWER)).status).toBe(401);
  await server.stores.users.update(user.id, { activationState: 'active' });
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  // One that ends in three seconds, used (and so cached) until then: the cache never outlives it.
  const ends = Date.now() + 3000;
  const brief = 'rst_pat_brief_token_for_the_expiry_test_000';
  await server.stores.personalTokens.createWithin(MAX_PERSONAL_TOKENS, {
    userId: user.id,
    name: 'brief',
    tokenHash: sha256(brief),
    scopes: ['openid'],
    expiresAt: ends,
  });
  expect((await gql(server, brief, VIEWER)).status).toBe(200);
  await new Promise((r) => setTimeout(r, ends - Date.now() + 200));
  expect((await gql(server, brief, VIEWER)).status).toBe(401);
});

test('a token made without openid is refused at /graphql (403 insufficient_scope), as a user token is', async () => {
  const { token } = await withToken('Mailonly', { scope: ['email'] });
  const res = await gql(server, token, VIEWER);
  expect(res.status).toBe(403);
  expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
});

test.each([
  [{ name: '' }, 'Name must be a non-empty string'],
  [{ name: 'evil\u001b[31m' }, 'Name'],
  [{ name: 'x'.repeat(101) }, 'Name must be at most 100 characters'],
  [{ scope: [] as string[] }, 'Scopes needs at least one scope'],
  [{ scope: ['openid', 'admin'] }, 'unknown scope'],
  [{ expires_in: '366d' }, 'Expiry must be from 1 minute to 365 days'],
  [{ expires_in: '1y' }, 'Expiry must be a whole number and a unit'],
])('refused with 400 and a reason, nothing stored: %j', async (fields, reason) => {
  const { user, session } = await signedInUser(server, 'Typo');
  await session.get('/account/tokens');
  const res = await session.post('/account/tokens', { name: 'ok', scope: 'openid', ...fields });
  expect(res.status).toBe(400);
  expect(res.text).toContain(reason);
  expect(await server.stores.personalTokens.listByUser(user.id)).toEqual([]);
});

test(`a flood of creations stops at ${MAX_PERSONAL_TOKENS} tokens, also when they race (409)`, async () => {
  const { user } = await signedInUser(server, 'Flood');
  const make = (i: number) =>
    server.services.personalTokens.create(user, { name: `t${i}`, scopes: ['openid'] }).then(
      () => 'made',
      (err: Error) => err.constructor.name,
    );
  const outcomes = await Promise.all(Array.from({ length: MAX_PERSONAL_TOKENS + 15 }, (_, i) => make(i)));
  expect(outcomes.filter((o) => o === 'made')).toHaveLength(MAX_PERSONAL_TOKENS);
  expect(outcomes.filter((o) => o !== 'made').every((o) => o === 'Conflict')).toBe(true);
  expect(await server.stores.personalTokens.listByUser(user.id)).toHaveLength(MAX_PERSONAL_TOKENS);
  // At the page: the same refusal, with the reason, nothing stored.
  const { user: full, session } = await signedInUser(server, 'Full');
  for (let n = 0; n < MAX_PERSONAL_TOKENS; n++) {
    await server.services.personalTokens.create(full, { name: `f${n}`, scopes: ['openid'] });
  }
  await session.get('/account/tokens');
  const refused = await session.post('/account/tokens', { name: 'one more', scope: 'openid' });
  expect(refused.status).toBe(409);
  expect(refused.text).toContain(`at most ${MAX_PERSONAL_TOKENS} personal access tokens`);
  expect(await server.stores.personalTokens.listByUser(full.id)).toHaveLength(MAX_PERSONAL_TOKENS);
}, 60_000);

test('last use is written in batches: requests make no write, a flush writes every token used in one statement', async () => {
  const { user, token } = await withToken('Busy');
  const { token: other } = await withToken('Busy too');
  const writes: string[] = [];
  const count = (q: { sql: string }) => {
    if (/update\s+[`"]personal_tokens[`"]/i.test(q.sql)) writes.push(q.sql);
  };
  server.db.on('query', count);
  try {
    for (let i = 0; i < 20; i++) expect((await gql(server, i % 2 ? token : other, VIEWER)).status).toBe(200);
    expect(writes).toEqual([]);
    await server.services.personalTokenUse.flush();
    expect(writes).toHaveLength(1);
  } finally {
    server.db.off('query', count);
  }
  const [row] = await server.stores.personalTokens.listByUser(user.id);
  expect(row!.lastUsedAt).toBeGreaterThan(Date.now() - 60_000);
});

test('every personal token of a user shares one budget, apart from the budgets of that user at apps', async () => {
  const { user, token } = await withToken('Budget');
  const second = await server.services.personalTokens.create(user, { name: 'second', scopes: ['openid'] });
  const used = async (bearer: string) =>
    Number((await gql(server, bearer, '{ viewer { tokenKind } }')).headers.get('x-ratelimit-used'));
  const first = await used(token);
  expect(await used(second.token)).toBe(first + 1);
});

test('a password reset deletes every personal token of the user: one made with a stolen password ends with it', async () => {
  const { user, token } = await withToken('Stolen');
  expect((await gql(server, token, VIEWER)).status).toBe(200);
  await server.services.users.resetPassword(user.uid, 'a brand new passphrase');
  expect((await gql(server, token, VIEWER)).status).toBe(401);
  expect(await server.stores.personalTokens.listByUser(user.id)).toEqual([]);
});

test('the page describes each scope in the consent page’s words: openid reads registrants’ addresses', async () => {
  const { session } = await signedInUser(server, 'Reader');
  const page = (await session.get('/account/tokens')).text;
  expect(page).toContain('who registered for the events you organize, with their email addresses');
});

test('an expiry sent twice is refused, not read as the default', async () => {
  const { user, session } = await signedInUser(server, 'Twice');
  await session.get('/account/tokens');
  const res = await session.post('/account/tokens', { name: 'twice', scope: 'openid', expires_in: ['7d', '365d'] });
  expect(res.status).toBe(400);
  expect(res.text).toContain('Expiry must be a whole number and a unit');
  expect(await server.stores.personalTokens.listByUser(user.id)).toEqual([]);
});
