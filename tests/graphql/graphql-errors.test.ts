import { startServer, type TestServer } from '../helpers/harness.js';
import { seedFixtures, useSeededServer } from '../helpers/fixtures.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';

// How /graphql answers its failures, whatever their kind: the same private, revalidated cache headers,
// and nothing internal leaks. (Bad input of each kind: tests/abuse/.)
const t = useSeededServer();
const CACHE_CONTROL = 'max-age=0, private, must-revalidate';

describe('every /graphql answer is private and revalidated', () => {
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${t.server.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });
  const auth = () => ({ Authorization: `Bearer ${t.fx.tokens.organizerUser}`, Accept: 'application/json' });

  test.each([
    ['no token (401)', () => ({ Accept: 'application/json' }), JSON.stringify({ query: SEED_QUERY }), 401],
    ['an unknown token (401)', () => ({ Authorization: 'Bearer nope' }), JSON.stringify({ query: SEED_QUERY }), 401],
    ['malformed JSON (400)', auth, '{"query": ', 400],
    ['a parse error (200 for application/json)', auth, JSON.stringify({ query: '{' }), 200],
    ['a validation error (200 for application/json)', auth, JSON.stringify({ query: '{ nope }' }), 200],
    [
      'a FORBIDDEN field (200)',
      () => ({ Authorization: `Bearer ${t.fx.tokens.otherApp}` }),
      JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } }),
      200,
    ],
  ])('%s', async (_name, headers, body, status) => {
    const res = await post(headers(), body);
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe(CACHE_CONTROL);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('an internal failure', () => {
  let broken: TestServer;
  let token: string;
  beforeAll(async () => {
    broken = await startServer();
    token = (await seedFixtures(broken)).tokens.organizerUser;
    // Break the database under the running server: the organizers lookup will fail with an SQL error.
    await broken.db.schema.renameTable('event_organizers', 'event_organizers_gone');
  });
  afterAll(() => broken.close());

  test('says "Internal server error" with a request id, and no SQL, table or stack', async () => {
    const res = await gql(broken, token, SEED_QUERY, { slug: 'public-meetup' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ event: null });
    expect(res.body.errors).toEqual([
      {
        message: 'Internal server error',
        path: ['event'],
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: res.headers.get('x-request-id') },
      },
    ]);
    expect(res.text).not.toMatch(/event_organizers|select|sqlite|postgres|stack/i);
  });

  test('the server keeps answering what it still can', async () => {
    const res = await gql(broken, token, '{ viewer { tokenKind } }');
    expect(res.body).toEqual({ data: { viewer: { tokenKind: 'USER' } } });
  });
});
