import { mintAccessToken } from '../../../src/oidc/mint-token.js';
import { useSeededServer } from '../../helpers/fixtures.js';
import { gql } from '../../helpers/graphql.js';
import { closeStreams, openStream, refusalOf, SUBSCRIBE } from '../../helpers/streams.js';
import { BURST_MS, HEALTH_MS, REFUSAL_MS } from '../../helpers/timing.js';

// Everything /graphql/stream refuses, it refuses before any stream opens: an HTTP status and a JSON body
// with one error code per error, quickly, never a 5xx. A refused document frees its slot; a burst of
// hostile requests does not hold up the server's other answers.
const t = useSeededServer();
afterEach(closeStreams);

const SSE = { accept: 'text/event-stream', 'content-type': 'application/json' };
const auth = () => ({ authorization: `Bearer ${t.fx.tokens.organizerUser}` });

/** A POST of `body` (JSON-encoded unless a string) with the organizer's token, unless `headers` say otherwise. */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  refusalOf(t.server, {
    method: 'POST',
    headers: { ...SSE, ...auth(), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

type Refusal = Awaited<ReturnType<typeof post>>;

function expectRefused(res: Refusal, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.errors!.length).toBeGreaterThan(0);
  expect(res.body.errors![0]!.extensions.code).toBe(code);
  expect(res.body.errors![0]!.message).toMatch(/^[^\n]{5,500}$/);
  expect(res.ms).toBeLessThan(REFUSAL_MS);
}

describe('the token', () => {
  test('none: 401 with a Bearer challenge', async () => {
    const res = await post({ query: SUBSCRIBE }, { authorization: '' });
    expectRefused(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="roster"/);
  });

  test.each([
    ['unknown', 'Bearer rst_nope'],
    ['malformed', 'Bearer a b c'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('%s: 401', async (_name, authorization) => {
    const res = await post({ query: SUBSCRIBE }, { authorization });
    expectRefused(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  test('a user token without the API scope (openid): 403 insufficient_scope', async () => {
    const { access_token: token } = await mintAccessToken(t.server.provider, {
      accountId: t.fx.organizer.uid,
      clientId: t.fx.orgApp.clientId,
      scope: 'email profile',
    });
    const res = await post({ query: SUBSCRIBE }, { authorization: `Bearer ${token}` });
    expectRefused(res, 403, 'FORBIDDEN');
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="openid"/);
  });
});

describe('the request', () => {
  test.each(['PUT', 'DELETE', 'PATCH'])('%s: 405 with Allow', async (method) => {
    const res = await refusalOf(t.server, { method, headers: { ...SSE, ...auth() }, body: '{}' });
    expectRefused(res, 405, 'BAD_REQUEST');
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  test.each(['application/json', '*/*', 'text/html'])('Accept: %s: 406', async (accept) => {
    expectRefused(await post({ query: SUBSCRIBE }, { accept }), 406, 'BAD_REQUEST');
  });

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'])(
    'Content-Type: %s: 415',
    async (type) => {
      expectRefused(await post({ query: SUBSCRIBE }, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    },
  );

  test.each([
    ['a batch', 400, 'BAD_REQUEST', [{ query: SUBSCRIBE }, { query: SUBSCRIBE }]],
    ['JSON that does not parse', 400, 'BAD_REQUEST', '{"query": '],
    ['JSON nested 100 deep', 400, 'BAD_REQUEST', `{"query":"x","variables":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`],
    [
      'a body over 100 kB',
      413,
      'PAYLOAD_TOO_LARGE',
      { query: `subscription { changes { cursor } } #${'x'.repeat(110_000)}` },
    ],
    ['no query', 400, 'BAD_REQUEST', { variables: {} }],
    ['variables that are not an object', 400, 'BAD_REQUEST', { query: SUBSCRIBE, variables: [1] }],
  ])('%s: %d %s', async (_name, status, code, body) => {
    expectRefused(await post(body), status, code);
  });
});

const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: cursor`).join(' ');
const nested = (n: number) => `${'f { '.repeat(n)}x${' }'.repeat(n)}`;

describe('the document', () => {
  test.each([
    ['a query', '{ viewer { tokenKind } }', 'BAD_REQUEST'],
    ['a mutation', 'mutation { anything }', 'BAD_REQUEST'],
  ])('%s: 400 pointing to /graphql', async (_name, query, code) => {
    const res = await post({ query });
    expectRefused(res, 400, code);
    expect(res.body.errors![0]!.message).toMatch(/\/graphql\b(?!\/)/);
  });

  test.each([
    ['a syntax error', 'GRAPHQL_PARSE_FAILED', 'subscription { changes { cursor }'],
    ['an unknown field', 'GRAPHQL_VALIDATION_FAILED', 'subscription { changes { nope } }'],
    ['two root fields', 'GRAPHQL_VALIDATION_FAILED', 'subscription { changes { cursor } again: changes { cursor } }'],
    ['an unknown type', 'GRAPHQL_VALIDATION_FAILED', 'subscription { changes(types: [NOPE]) { cursor } }'],
    ['too deep', 'QUERY_TOO_COMPLEX', `subscription { changes { ${nested(20)} } }`],
    ['too many aliases', 'QUERY_TOO_COMPLEX', `subscription { changes { ${aliases(40)} } }`],
    [
      'over the cost limit',
      'QUERY_TOO_COMPLEX',
      'subscription { changes { event { registrations(first: 2147483647) { totalCount } } } }',
    ],
    ['over 5000 tokens', 'GRAPHQL_PARSE_FAILED', `subscription { changes { ${'cursor '.repeat(6000)}} }`],
    [
      '500 anonymous operations',
      'GRAPHQL_VALIDATION_FAILED',
      Array(500).fill('subscription { changes { cursor } }').join(' '),
    ],
    [
      '300 named operations, none chosen',
      'BAD_REQUEST',
      Array.from({ length: 300 }, (_, i) => `subscription S${i} { changes { cursor } }`).join(' '),
    ],
  ])('%s: 400 %s', async (_name, code, query) => {
    expectRefused(await post({ query }), 400, code);
  });

  test.each([
    ['types: a string no enum has', { types: 'NOPE' }],
    ['event: a number', { event: 5 }],
    ['types: an object', { types: { a: 1 } }],
  ])('variables of the wrong type (%s): 400 BAD_USER_INPUT', async (_name, variables) => {
    expectRefused(await post({ query: SUBSCRIBE, variables }), 400, 'BAD_USER_INPUT');
  });

  test('an operationName the document lacks: 400', async () => {
    const res = await post({ query: 'subscription S { changes { cursor } }', operationName: 'T' });
    expectRefused(res, 400, 'BAD_REQUEST');
  });

  test('/graphql refuses a subscription with a 400 pointing to /graphql/stream', async () => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, 'subscription { changes { cursor } }');
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0]!.extensions!.code).toBe('BAD_REQUEST');
    expect(res.body.errors![0]!.message).toMatch(/\/graphql\/stream/);
  });
});

test('a burst of hostile requests does not hold up a normal query; then the owner still opens a stream', async () => {
  // Each costs the server tens of milliseconds at most (parsing and validating up to 5,000 tokens).
  const hostile = [
    `subscription { changes { ${'cursor '.repeat(6000)}} }`,
    `subscription { changes { ${nested(200)} } }`,
    Array(500).fill('subscription { changes { cursor } }').join(' '),
    `subscription { changes { ${Array.from({ length: 50 }, () => aliases(30)).join(' ')} } }`,
    Array.from({ length: 300 }, (_, i) => `subscription S${i} { changes { cursor } }`).join(' '),
  ];
  const started = performance.now();
  const burst = Promise.all(Array.from({ length: 20 }, (_, i) => post({ query: hostile[i % hostile.length] })));
  const normalStarted = performance.now();
  const normal = await gql(t.server, t.fx.tokens.otherUser, '{ event(slug: "public-meetup") { name } }');
  const normalMs = performance.now() - normalStarted;
  expect(normal.status).toBe(200);
  expect(normal.body.data).toEqual({ event: { name: 'Public Meetup' } });
  expect(normalMs).toBeLessThan(HEALTH_MS);
  // Each is refused: its document, or (sent all at once by one owner) a slot while the owner's others are read.
  const answers = (await burst).map((r) => `${r.status} ${r.body.errors![0]!.extensions.code}`);
  expect(
    answers.filter((a) => a !== '429 TOO_MANY_STREAMS' && !/^400 (GRAPHQL_|QUERY_TOO|BAD_REQUEST)/.test(a)),
  ).toEqual([]);
  expect(answers.filter((a) => a.startsWith('400')).length).toBeGreaterThan(0);
  expect(performance.now() - started).toBeLessThan(BURST_MS);
  // Every refused document gave its slot back: the owner (10 streams at most) still opens one.
  const stream = await openStream(t.server, t.fx.tokens.organizerUser);
  expect(stream.status).toBe(200);
});
