import { useSeededServer } from '../helpers/fixtures.js';

const t = useSeededServer();

const QUERY = JSON.stringify({ query: '{ viewer { __typename } }' });

const graphql = (authorization?: string) =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(authorization === undefined ? {} : { Authorization: authorization }),
    },
    body: QUERY,
  });

async function expectUnauthenticated(res: Response, challenge: RegExp) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(challenge);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
  expect(body.errors[0]!.message).toMatch(/^[^\n]+\.$/);
}

describe('/graphql bearer errors (RFC 6750)', () => {
  test('no Authorization header: bare challenge', async () => {
    await expectUnauthenticated(await graphql(), /^Bearer realm="roster"$/);
  });

  test.each([
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty header', ''],
  ])('%s counts as no bearer credentials', async (_name, header) => {
    await expectUnauthenticated(await graphql(header), /^Bearer realm="roster"$/);
  });

  test.each([
    ['an empty bearer', 'Bearer '],
    ['a token with spaces', 'Bearer abc def'],
    ['a token with bad characters', 'Bearer a"b<c>'],
    ['a 10 KB token', `Bearer ${'a'.repeat(10_000)}`],
  ])('%s: invalid_token', async (_name, header) => {
    await expectUnauthenticated(await graphql(header), /error="invalid_token"/);
  });

  test.each([
    ['an unknown opaque token', 'Bearer nonsense-token'],
    ['an unknown app token', 'Bearer rst_app_unknown'],
  ])('%s: invalid_token', async (_name, header) => {
    await expectUnauthenticated(await graphql(header), /^Bearer realm="roster", error="invalid_token"/);
  });

  test('the scheme name is case-insensitive', async () => {
    expect((await graphql(`bearer ${t.fx.tokens.organizerApp}`)).status).toBe(200);
  });

  test('a rotated app token stops working at once; the new one works', async () => {
    const app = (await t.server.stores.apps.findByClientId(t.fx.otherApp.clientId))!;
    const before = await graphql(`Bearer ${t.fx.tokens.otherApp}`);
    expect(before.status).toBe(200);
    const fresh = await t.server.stores.apps.rotateAppToken(app.id);
    await expectUnauthenticated(await graphql(`Bearer ${t.fx.tokens.otherApp}`), /error="invalid_token"/);
    expect((await graphql(`Bearer ${fresh}`)).status).toBe(200);
  });

  test('deleting an app kills its user tokens and app tokens', async () => {
    const made = await t.server.stores.apps.create({
      ownerId: t.fx.organizer.id,
      name: 'Short-lived',
      redirectUris: ['https://example.com/cb'],
    });
    const { mintAccessToken } = await import('../../src/oidc/mint-token.js');
    const user = await mintAccessToken(t.server.provider, {
      accountId: t.fx.organizer.uid,
      clientId: made.app.clientId,
      scope: 'openid',
    });
    expect((await graphql(`Bearer ${user.access_token}`)).status).toBe(200);
    expect((await graphql(`Bearer ${made.appToken}`)).status).toBe(200);
    await t.server.stores.apps.delete(made.app.id);
    await expectUnauthenticated(await graphql(`Bearer ${user.access_token}`), /error="invalid_token"/);
    await expectUnauthenticated(await graphql(`Bearer ${made.appToken}`), /error="invalid_token"/);
  });
});

describe('health', () => {
  test('/healthz and /readyz answer without a token', async () => {
    const health = await fetch(`${t.server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  test('every response carries a request id; a sane incoming one is echoed', async () => {
    const res = await fetch(`${t.server.url}/healthz`, { headers: { 'X-Request-Id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    const generated = await fetch(`${t.server.url}/healthz`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
