import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { useSeededServer } from '../helpers/fixtures.js';

const t = useSeededServer();

const userinfo = (token?: string, init: RequestInit = {}) =>
  fetch(`${t.server.url}/openid/userinfo`, {
    ...init,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });

const mint = async (scope: string, clientId = t.fx.orgApp.clientId, accountId = t.fx.organizer.uid) =>
  (await mintAccessToken(t.server.provider, { accountId, clientId, scope })).access_token;

describe('userinfo claims by scope', () => {
  const cases: [string, string[]][] = [
    ['openid', ['sub', 'uid', 'updated_at']],
    ['openid email', ['email', 'email_verified', 'sub', 'uid', 'updated_at']],
    ['openid profile', ['name', 'picture', 'sub', 'uid', 'updated_at', 'zoneinfo']],
    ['openid email profile', ['email', 'email_verified', 'name', 'picture', 'sub', 'uid', 'updated_at', 'zoneinfo']],
  ];
  test.each(cases)('%s', async (scope, claims) => {
    const res = await userinfo(await mint(scope));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(claims);
    expect(Number.isInteger(body.updated_at)).toBe(true);
    expect(body.updated_at).toBe(Math.floor(t.fx.organizer.updatedAt / 1000));
    if (claims.includes('uid')) expect(body.uid).toBe(t.fx.organizer.uid);
    if (claims.includes('email')) {
      expect(body.email).toBe('Org@Example.com');
      expect(body.email_verified).toBe(true);
    }
    if (claims.includes('name')) {
      expect(body).toMatchObject({ name: 'Olive Organizer', zoneinfo: 'Europe/Paris' });
      expect(body.picture).toBe('https://example.com/olive.png');
    }
  });

  test('picture and zoneinfo are left out when unknown, not null', async () => {
    const res = await userinfo(await mint('openid profile email', t.fx.otherApp.clientId, t.fx.other.uid));
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.name).toBe('Otto Other');
    expect(body.email_verified).toBe(false);
    expect('picture' in body).toBe(false);
    expect('zoneinfo' in body).toBe(false);
  });

  test('POST works like GET', async () => {
    const res = await userinfo(t.fx.tokens.organizerUser, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await res.json()) as object).toHaveProperty('uid', t.fx.organizer.uid);
  });
});

describe('pairwise subjects', () => {
  test('stable per app, different across apps, never the uid', async () => {
    const subAt = async (clientId: string) =>
      ((await (await userinfo(await mint('openid', clientId))).json()) as { sub: string }).sub;
    const a1 = await subAt(t.fx.orgApp.clientId);
    const a2 = await subAt(t.fx.orgApp.clientId);
    const b = await subAt(t.fx.otherApp.clientId);
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(a1).not.toContain(t.fx.organizer.uid);
  });

  test('discovery advertises pairwise subjects and the userinfo path', async () => {
    const res = await fetch(`${t.server.url}/.well-known/openid-configuration`);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(t.server.url);
    expect(doc.userinfo_endpoint).toBe(`${t.server.url}/openid/userinfo`);
    expect(doc.subject_types_supported).toEqual(['pairwise']);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    const jwks = (await (await fetch(String(doc.jwks_uri))).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});

describe('userinfo bearer errors (RFC 6750)', () => {
  test('no token: 401 with a bare Bearer challenge', async () => {
    const res = await userinfo();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="roster"');
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  test.each([
    ['an unknown token', 'not-a-real-token'],
    ['an app token', 'APP'],
  ])('%s: 401 invalid_token', async (_name, token) => {
    const res = await userinfo(token === 'APP' ? t.fx.tokens.organizerApp : token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="roster", error="invalid_token"/);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_token');
    expect(body.error_description).toMatch(/\.$/);
  });

  test('a token without openid: 403 insufficient_scope', async () => {
    const res = await userinfo(await mint('email profile'));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="openid"/);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' });
  });

  test('a revoked grant kills its token', async () => {
    const token = await mint('openid');
    expect((await userinfo(token)).status).toBe(200);
    const accessToken = await t.server.provider.AccessToken.find(token);
    await t.server.provider.Grant.adapter.revokeByGrantId(accessToken!.grantId);
    expect((await userinfo(token)).status).toBe(401);
  });

  test('an expired token: 401 invalid_token', async () => {
    const token = await mint('openid');
    await t.server
      .db('oidc_payloads')
      .where({ model: 'AccessToken' })
      .update({ expires_at: Date.now() - 1000 });
    const res = await userinfo(token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('a deactivated user: 401 invalid_token', async () => {
    const token = await mint('openid', t.fx.otherApp.clientId, t.fx.other.uid);
    expect((await userinfo(token)).status).toBe(200);
    await t.server.db('users').where({ id: t.fx.other.id }).update({ activation_state: 'deactivated' });
    try {
      expect((await userinfo(token)).status).toBe(401);
    } finally {
      await t.server.db('users').where({ id: t.fx.other.id }).update({ activation_state: 'active' });
    }
  });

  test('tokens are stored only as hashes', async () => {
    const token = await mint('openid');
    const rows = await t.server.db('oidc_payloads').select('id', 'payload');
    for (const row of rows) {
      expect(row.id).not.toBe(token);
      expect(String(row.payload)).not.toContain(token);
    }
    const appTokens = await t.server.db('app_tokens').select('token_hash');
    for (const row of appTokens) expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
