import { startServer, type TestServer } from '../helpers/harness.js';
import { ANSWER_MS } from '../helpers/timing.js';
import { authorizationParams, tally } from './sign-in-forms.js';

// GET /auth with no cookies stores an interaction before anyone signs in: an anonymous client must not be
// able to fill the database with them. Parameters are capped, each address is throttled before anything
// is stored, and an abandoned interaction lives minutes, not an hour.
const LIMIT = 12;
let server: TestServer;
let client: { clientId: string; redirectUri: string };

beforeAll(async () => {
  server = await startServer({ AUTHORIZE_RATE_LIMIT: String(LIMIT), TRUST_PROXY: '1' });
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'Owner' });
  const made = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'Pocket App',
    redirectUris: ['http://localhost:3000/cb'],
    confidential: false,
  });
  client = { clientId: made.app.clientId, redirectUri: 'http://localhost:3000/cb' };
});
afterAll(() => server.close());

const stored = async () => {
  const rows: { model: string; bytes: number }[] = await server
    .db('oidc_payloads')
    .select('model')
    .select(server.db.raw('length(payload) as bytes'));
  return rows;
};

const authorize = (params: URLSearchParams, from: string, init: RequestInit = {}) =>
  fetch(`${server.url}/auth${init.method === 'POST' ? '' : `?${params}`}`, {
    redirect: 'manual',
    ...init,
    headers: { 'X-Forwarded-For': from, ...(init.headers as Record<string, string>) },
    signal: AbortSignal.timeout(ANSWER_MS),
  });

test.each(['state', 'nonce', 'login_hint'])('a %s of 7 kB is refused with 400 and stores nothing', async (name) => {
  const before = (await stored()).length;
  const params = authorizationParams(client);
  params.set(name, 'x'.repeat(7000));
  const res = await authorize(params, '198.51.100.1');
  expect(res.status).toBe(400);
  const page = await res.text();
  expect(page).toContain('invalid_request');
  expect(page).toContain(`${name} is longer than 2048 characters`);
  expect((await stored()).length).toBe(before);
});

test('a POST to /auth larger than the cap is refused with 413 before it is read', async () => {
  const params = authorizationParams(client);
  params.set('state', 'x'.repeat(9000));
  const res = await authorize(params, '198.51.100.2', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: params.toString(),
  });
  expect(res.status).toBe(413);
});

test('a parameter at the cap is taken, and what one interaction stores stays small', async () => {
  const params = authorizationParams(client);
  params.set('state', 's'.repeat(2048));
  params.set('nonce', 'n'.repeat(2048));
  const res = await authorize(params, '198.51.100.3');
  expect(res.status).toBe(303);
  const interactions = (await stored()).filter((r) => r.model === 'Interaction');
  expect(interactions.length).toBeGreaterThan(0);
  // Two capped parameters, sealed: well under the 16.5 kB each interaction cost before the caps.
  expect(Math.max(...interactions.map((r) => r.bytes))).toBeLessThan(9000);
});

test('an abandoned interaction expires within ten minutes', async () => {
  const startedAt = Date.now();
  const res = await authorize(authorizationParams(client), '198.51.100.4');
  expect(res.status).toBe(303);
  const latest = await server.db('oidc_payloads').where({ model: 'Interaction' }).max('expires_at as at').first();
  expect(Number(latest?.at)).toBeGreaterThan(startedAt);
  expect(Number(latest?.at)).toBeLessThanOrEqual(startedAt + 10 * 60 * 1000 + 5000);
});

test('one address is throttled before anything is stored; another address is not', async () => {
  const from = '203.0.113.9';
  const countInteractions = async () => (await stored()).filter((r) => r.model === 'Interaction').length;
  const before = await countInteractions();
  const answers = await Promise.all(
    Array.from({ length: LIMIT + 8 }, () => authorize(authorizationParams(client), from)),
  );
  expect(tally(answers)).toEqual({ 303: LIMIT, 429: 8 });
  const refused = answers.find((r) => r.status === 429)!;
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await refused.text()).toContain('Too many sign-in or sign-out requests');
  expect(await countInteractions()).toBe(before + LIMIT);

  const elsewhere = await authorize(authorizationParams(client), '203.0.113.10');
  expect(elsewhere.status).toBe(303);
});

test('a long parameter hidden behind a thousand others is still refused', async () => {
  const params = authorizationParams(client);
  params.set('state', 'x'.repeat(3000));
  const junk = Array.from({ length: 1200 }, () => 'a').join('&');
  const res = await fetch(`${server.url}/auth?${junk}&${params}`, {
    redirect: 'manual',
    headers: { 'X-Forwarded-For': '198.51.100.5' },
    signal: AbortSignal.timeout(ANSWER_MS),
  });
  expect(res.status).toBe(400);
  expect(await res.text()).toContain('state is longer than 2048 characters');
});

test('pushed authorization requests are off: /request stores nothing and discovery does not offer it', async () => {
  const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(doc.pushed_authorization_request_endpoint).toBeUndefined();
  const before = (await stored()).length;
  const params = authorizationParams(client);
  params.set('state', 'x'.repeat(50_000));
  const res = await fetch(`${server.url}/request`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: params,
    signal: AbortSignal.timeout(ANSWER_MS),
  });
  expect(res.status).toBe(404);
  expect((await stored()).length).toBe(before);
});

test('a flood of anonymous /session/end from one address stores no more than its budget of sessions', async () => {
  const from = '203.0.113.77';
  const sessions = async () => (await stored()).filter((r) => r.model === 'Session').length;
  const before = await sessions();
  const answers = await Promise.all(
    Array.from({ length: LIMIT + 5 }, () =>
      fetch(`${server.url}/session/end`, {
        headers: { 'X-Forwarded-For': from },
        signal: AbortSignal.timeout(ANSWER_MS),
      }),
    ),
  );
  expect(tally(answers)[429]).toBe(5);
  expect(await sessions()).toBeLessThanOrEqual(before + LIMIT);
});
