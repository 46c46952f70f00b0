import { useSeededServer } from './helpers/fixtures.js';

const t = useSeededServer();

const post = (body: string, contentType = 'application/json') =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${t.fx.tokens.organizerUser}`,
      'Content-Type': contentType,
      Accept: 'application/json',
    },
    body,
  });

type ErrorBody = { errors: { message: string; extensions: { code: string } }[] };

describe('bad request bodies get a clear 4xx', () => {
  test('malformed JSON: 400', async () => {
    const res = await post('{"query": ');
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.errors[0]!.message).toBe('The request body is not valid JSON.');
    expect(body.errors[0]!.extensions.code).toBe('BAD_REQUEST');
  });

  test('a body over 100 kB: 413', async () => {
    const res = await post(JSON.stringify({ query: `{ viewer { tokenKind } }${' '.repeat(110 * 1024)}` }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).errors[0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test.each([
    ['no query', '{}'],
    ['a non-string query', '{"query": 42}'],
    ['non-object variables', '{"query": "{ viewer { tokenKind } }", "variables": [1]}'],
  ])('%s: 400', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors).toHaveLength(1);
  });

  test('a wrong variable type is BAD_USER_INPUT, not a 5xx (200 in an application/json answer)', async () => {
    const res = await post(
      JSON.stringify({ query: 'query($slug: String!) { event(slug: $slug) { id } }', variables: { slug: 7 } }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as ErrorBody).errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
  });

  test('the t.server keeps answering afterwards', async () => {
    const res = await post(JSON.stringify({ query: '{ viewer { tokenKind } }' }));
    expect(await res.json()).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
  });
});

describe('interactions', () => {
  test('an interaction URL opened without its browser cookie gets our error page, not a login form', async () => {
    const params = new URLSearchParams({
      client_id: t.fx.orgApp.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://localhost:3000/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${t.server.url}/auth?${params}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/interaction\/[\w-]+$/);
    const page = await fetch(`${t.server.url}${location}`);
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await page.text();
    expect(body).toContain('This sign-in request has expired or was started in another browser.');
    expect(body).not.toContain('password');
    // oidc-provider's development login pages are off.
    expect((await fetch(`${t.server.url}${location}/login`, { method: 'POST' })).status).toBe(400);
  });

  test('an unknown interaction or a bare form post never reaches a 5xx', async () => {
    for (const [method, path] of [
      ['GET', '/interaction/nope'],
      ['POST', '/interaction/nope/login'],
      ['POST', '/interaction/nope/consent'],
      ['POST', '/interaction/nope/abort'],
    ] as const) {
      const res = await fetch(`${t.server.url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: method === 'POST' ? 'email=a&password=b&_csrf=c' : undefined,
      });
      expect(res.status).toBe(400);
    }
  });
});

describe('the Knex adapter', () => {
  test('consume marks a code consumed; findByUid finds a session; expired rows are gone', async () => {
    const { provider } = t.server;
    const client = (await provider.Client.find(t.fx.orgApp.clientId))!;
    const code = new provider.AuthorizationCode({
      accountId: t.fx.organizer.uid,
      client,
      grantId: 'grant-x',
      scope: 'openid',
      redirectUri: 'http://localhost:3000/callback',
      gty: 'authorization_code',
    });
    const value = await code.save();
    await code.consume();
    const found = (await provider.AuthorizationCode.find(value)) as unknown as { consumed?: number };
    expect(found.consumed).toEqual(expect.any(Number));

    const session = { jti: 'session-jti', uid: 'session-uid', accountId: t.fx.organizer.uid, kind: 'Session' };
    await provider.Session.adapter.upsert('session-jti', session, 3600);
    expect((await provider.Session.findByUid('session-uid'))!.accountId).toBe(t.fx.organizer.uid);

    await t.server
      .db('oidc_payloads')
      .where({ model: 'Session' })
      .update({ expires_at: Date.now() - 1 });
    expect(await provider.Session.findByUid('session-uid')).toBeUndefined();
    expect(await t.server.stores.oidc.deleteExpired()).toBeGreaterThanOrEqual(1);
  });
});
