import { useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { mintAccessToken } from '../../src/oidc/mint-token.js';
import { globalId } from '../../src/lib/ids.js';

// A user token reads /graphql only when openid was granted: the consent page lists the API under openid alone.
const t = useSeededServer();

const tokenWith = async (scope: string) =>
  (
    await mintAccessToken(t.server.provider, {
      accountId: t.fx.organizer.uid,
      clientId: t.fx.orgApp.clientId,
      scope,
    })
  ).access_token;

/** Every root an under-scoped token might try: each must be refused before it runs. */
const ROOTS = {
  event: [SEED_QUERY, { slug: 'private-retreat' }],
  events: ['{ events(first: 5) { nodes { slug } } }', undefined],
  node: ['query($id: ID!) { node(id: $id) { id } }', { id: globalId('Event', 2) }],
  viewer: ['{ viewer { tokenKind scopes } }', undefined],
  introspection: ['{ __schema { queryType { name } } }', undefined],
} as const;

function expectInsufficientScope(res: { status: number; headers: Headers; body: unknown }) {
  expect(res.status).toBe(403);
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain('scope="openid"');
  expect(res.body).toEqual({
    errors: [{ message: expect.stringContaining('openid'), extensions: { code: 'FORBIDDEN' } }],
  });
}

describe.each(['profile', 'email', 'email profile'])('a user token granted only "%s"', (scope) => {
  test.each(Object.keys(ROOTS))('is refused at %s with 403 insufficient_scope', async (root) => {
    const [query, variables] = ROOTS[root as keyof typeof ROOTS];
    expectInsufficientScope(await gql(t.server, await tokenWith(scope), query, variables));
  });

  test('is refused by GET too', async () => {
    const url = `${t.server.url}/graphql?query=${encodeURIComponent('{ viewer { tokenKind } }')}`;
    const res = await fetch(url, { headers: { Authorization: `Bearer ${await tokenWith(scope)}` } });
    expectInsufficientScope({ status: res.status, headers: res.headers, body: await res.json() });
  });
});

test('an answer replayed for the openid token is not replayed to a token of the same user without openid', async () => {
  const full = await gql(t.server, await tokenWith('openid email profile'), SEED_QUERY, { slug: 'private-retreat' });
  expect(full.status).toBe(200);
  expect(JSON.stringify(full.body)).toContain('ann@example.com');
  const narrow = await tokenWith('email profile');
  for (let i = 0; i < 2; i++) {
    expectInsufficientScope(await gql(t.server, narrow, SEED_QUERY, { slug: 'private-retreat' }));
  }
});

test('openid alone reads the API as the user, registrant emails included for an organizer', async () => {
  const res = await gql(t.server, await tokenWith('openid'), SEED_QUERY, { slug: 'private-retreat' });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(JSON.stringify(res.body.data)).toContain('ann@example.com');
});

test('app tokens carry no scopes and keep their own, narrower rights', async () => {
  const res = await gql(t.server, t.fx.tokens.organizerApp, SEED_QUERY, { slug: 'private-retreat' });
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body.data)).not.toContain('@');
});

test('userinfo still serves a token without openid nothing (403), and one with openid its claims', async () => {
  const narrow = await fetch(`${t.server.url}/openid/userinfo`, {
    headers: { Authorization: `Bearer ${await tokenWith('profile')}` },
  });
  expect(narrow.status).toBe(403);
  expect(narrow.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  const full = await fetch(`${t.server.url}/openid/userinfo`, {
    headers: { Authorization: `Bearer ${await tokenWith('openid profile')}` },
  });
  expect(full.status).toBe(200);
  expect(await full.json()).toMatchObject({ name: 'Olive Organizer' });
});
