import { useSeededServer } from '../helpers/fixtures.js';
import { SEED_QUERY } from '../helpers/graphql.js';
import { startServer } from '../helpers/harness.js';
import { postUnfinishedBody } from '../helpers/raw-http.js';
import { sqlDuring } from '../helpers/sql.js';

// CORS on the bearer-token APIs: any origin, preflight answered before authentication, every answer
// (errors included) readable from a page on another origin.

const t = useSeededServer({ RATE_LIMIT_POINTS: '40' });
const ORIGIN = 'https://app.example';
const EXPOSED = [
  'ETag',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Used',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'WWW-Authenticate',
].join(',');

const preflight = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${t.server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: ORIGIN,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type',
      ...headers,
    },
  });

/** A cross-origin request as a browser sends it (no cookies; the page adds the bearer token). */
const crossOrigin = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${t.server.url}${path}`, { ...init, headers: { Origin: ORIGIN, ...init.headers } });

const post = (token: string | undefined, body: string, contentType = 'application/json') =>
  crossOrigin('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': contentType, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body,
  });

function expectReadable(res: Response) {
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('access-control-expose-headers')).toBe(EXPOSED);
  expect(res.headers.get('access-control-allow-credentials')).toBeNull();
}

describe('preflight', () => {
  test.each(['/graphql', '/graphql/schema.graphql', '/graphql/stream', '/openid/userinfo'])(
    'OPTIONS %s answers 204 with the fixed policy, without a token and without touching the database',
    async (path) => {
      const { result: res, sql } = await sqlDuring(t.server.db, () => preflight(path));
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe(
        'Authorization,Content-Type,Accept,If-None-Match,X-Request-Id,Last-Event-ID',
      );
      expect(res.headers.get('access-control-max-age')).toBe('86400');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(await res.text()).toBe('');
      expect(sql).toEqual([]);
    },
  );

  test('a preflight with a bearer token spends nothing from the budget', async () => {
    const before = await post(t.fx.tokens.organizerUser, JSON.stringify({ query: '{ viewer { tokenKind } }' }));
    await preflight('/graphql', { Authorization: `Bearer ${t.fx.tokens.organizerUser}` });
    await preflight('/openid/userinfo', { Authorization: `Bearer ${t.fx.tokens.organizerUser}` });
    const after = await post(t.fx.tokens.organizerUser, JSON.stringify({ query: '{ viewer { tokenKind } }' }));
    const used = (res: Response) => Number(res.headers.get('x-ratelimit-used'));
    expect(used(after) - used(before)).toBe(used(before)); // each query costs the same; preflights cost 0
  });
});

describe('answers a page on another origin can read', () => {
  test('a query: 200 with ETag and the budget exposed', async () => {
    const res = await post(
      t.fx.tokens.organizerUser,
      JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } }),
    );
    expect(res.status).toBe(200);
    expectReadable(res);
    expect(res.headers.get('etag')).toMatch(/^(W\/)?"/);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  test('GET /graphql/schema.graphql', async () => {
    const res = await crossOrigin('/graphql/schema.graphql');
    expect(res.status).toBe(200);
    expectReadable(res);
  });

  test('401 without a token, with WWW-Authenticate', async () => {
    const res = await post(undefined, JSON.stringify({ query: '{ viewer { tokenKind } }' }));
    expect(res.status).toBe(401);
    expectReadable(res);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test('400 bad JSON, 413 too large, 415 wrong type', async () => {
    const token = t.fx.tokens.organizerUser;
    const bad = await post(token, '{"query":');
    expect(bad.status).toBe(400);
    expectReadable(bad);
    const large = await post(token, JSON.stringify({ query: `{ viewer { tokenKind } }${' '.repeat(200_000)}` }));
    expect(large.status).toBe(413);
    expectReadable(large);
    const type = await post(token, 'query=x', 'text/plain');
    expect(type.status).toBe(415);
    expectReadable(type);
  });

  test('429 with Retry-After once the budget is spent', async () => {
    let res: Response;
    // Bounded at twice the 40-point budget: a limiter that never refuses fails here instead of spinning.
    let sent = 0;
    do {
      res = await post(t.fx.tokens.otherApp, JSON.stringify({ query: '{ viewer { tokenKind } }' }));
    } while (res.status === 200 && ++sent < 80);
    expect(res.status).toBe(429);
    expectReadable(res);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('userinfo: 200, 401 and 405', async () => {
    const ok = await crossOrigin('/openid/userinfo', {
      headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}` },
    });
    expect(ok.status).toBe(200);
    expectReadable(ok);
    const unauthorized = await crossOrigin('/openid/userinfo');
    expect(unauthorized.status).toBe(401);
    expectReadable(unauthorized);
    const wrongMethod = await crossOrigin('/openid/userinfo', { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    expectReadable(wrongMethod);
  });
});

test('the 503 of a request over REQUEST_TIMEOUT_MS carries the CORS headers', async () => {
  const slow = await startServer({ REQUEST_TIMEOUT_MS: '200' });
  try {
    const owner = await slow.stores.users.create({ email: 'slow@example.com', name: 'Slow' });
    const { appToken } = await slow.stores.apps.create({ ownerId: owner.id, name: 'Slow', redirectUris: [ORIGIN] });
    // A body that never finishes arriving.
    const answer = await postUnfinishedBody(
      `${slow.url}/graphql`,
      { Origin: ORIGIN, Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      '{"query":',
      100,
    );
    expect(answer.status).toBe(503);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-expose-headers']).toBe(EXPOSED);
  } finally {
    await slow.close();
  }
});

describe("the token endpoint keeps oidc-provider's client-based CORS", () => {
  const tokenRequest = (origin: string, clientId: string) =>
    fetch(`${t.server.url}/token`, {
      method: 'POST',
      headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'not-a-code',
        client_id: clientId,
        redirect_uri: 'https://spa.example/callback',
        code_verifier: 'x'.repeat(43),
      }),
    });

  test("a public client's redirect origin may call it; another origin may not", async () => {
    const made = await t.server.stores.apps.create({
      ownerId: t.fx.organizer.id,
      name: 'SPA',
      redirectUris: ['https://spa.example/callback'],
      confidential: false,
    });
    const allowed = await tokenRequest('https://spa.example', made.app.clientId);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://spa.example');
    expect(((await allowed.json()) as { error: string }).error).toBe('invalid_grant');
    const other = await tokenRequest(ORIGIN, made.app.clientId);
    expect(other.headers.get('access-control-allow-origin')).not.toBe('*');
    expect(other.headers.get('access-control-allow-origin')).not.toBe(ORIGIN);
  });
});
