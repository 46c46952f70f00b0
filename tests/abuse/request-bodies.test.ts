import { useSeededServer } from '../helpers/fixtures.js';
import { SEED_QUERY } from '../helpers/graphql.js';
import { BURST_MS } from '../helpers/timing.js';
import { expectApiAnswer, HOSTILE, send as sendHostile } from './hostile-bodies.js';

// Request bodies and media types: what /graphql does with a body it cannot use, and what every API route
// does with a hostile one. Each gets a 4xx with a one-line reason and a code (or a GraphQL error in a
// 200) quickly, and the server keeps answering correctly afterwards. (Pages fed the same: identity-forms.)
const t = useSeededServer();
const CACHE_CONTROL = 'max-age=0, private, must-revalidate';
type ErrorBody = { errors: { message: string; extensions: { code: string } }[] };
const JSON_ONLY = { Accept: 'application/json' };

const send = (body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json', ...headers },
    body,
  });

afterEach(async () => {
  const res = await send(JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } }));
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { event: { slug: string } } }).data.event).not.toBeNull();
});

describe('content types', () => {
  test.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/graphql'], ['']])(
    'a POST with Content-Type %j: 415',
    async (type) => {
      const res = await send(JSON.stringify({ query: '{ viewer { tokenKind } }' }), { 'Content-Type': type });
      expect(res.status).toBe(415);
      expect(res.headers.get('accept-post')).toBe('application/json');
      expect(res.headers.get('cache-control')).toBe(CACHE_CONTROL);
      const body = (await res.json()) as ErrorBody;
      expect(body.errors[0]!.extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    },
  );

  test('an Accept the server cannot answer: 406', async () => {
    const res = await send(JSON.stringify({ query: '{ viewer { tokenKind } }' }), { Accept: 'application/xml' });
    expect(res.status).toBe(406);
  });

  test('a charset other than UTF-8: 415', async () => {
    const res = await send(JSON.stringify({ query: '{ viewer { tokenKind } }' }), {
      'Content-Type': 'application/json; charset=latin1',
    });
    expect(res.status).toBe(415);
  });
});

describe('the JSON envelope', () => {
  test('malformed JSON: 400', async () => {
    const res = await send('{"query": ', JSON_ONLY);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.errors[0]!.message).toBe('The request body is not valid JSON.');
    expect(body.errors[0]!.extensions.code).toBe('BAD_REQUEST');
  });

  test('invalid UTF-8: 400, not a query with replacement characters', async () => {
    const body = Buffer.concat([
      Buffer.from('{"query":"{ viewer { tokenKind } }","operationName":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const res = await send(body);
    expect(res.status).toBe(400);
    const parsed = (await res.json()) as ErrorBody;
    expect(parsed.errors[0]).toEqual({
      message: 'The request body is not valid UTF-8.',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  test('a body over 100 kB: 413', async () => {
    const res = await send(JSON.stringify({ query: `{ viewer { tokenKind } }${' '.repeat(110 * 1024)}` }), JSON_ONLY);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).errors[0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('a batch (JSON array): 400 saying to send one operation per request', async () => {
    const res = await send(JSON.stringify([{ query: '{ viewer { tokenKind } }' }, { query: '{ viewer { scopes } }' }]));
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors[0]!.message).toMatch(/one operation per request/);
  });

  test.each([
    ['no query', '{}'],
    ['a non-string query', '{"query": 42}'],
    ['non-object variables', '{"query": "{ viewer { tokenKind } }", "variables": [1]}'],
  ])('%s: 400 with one error', async (_name, body) => {
    const res = await send(body, JSON_ONLY);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors).toHaveLength(1);
  });

  test.each([
    ['a JSON string', '"{ viewer { tokenKind } }"'],
    ['null', 'null'],
    ['a number', '42'],
    ['operationName of the wrong type', '{"query":"{ viewer { tokenKind } }","operationName":7}'],
    ['extensions of the wrong type', '{"query":"{ viewer { tokenKind } }","extensions":"x"}'],
  ])('%s: 400', async (_name, body) => {
    const res = await send(body);
    expect(res.status).toBe(400);
  });

  test('a wrong variable type is BAD_USER_INPUT, not a 5xx (200 in an application/json answer)', async () => {
    const res = await send(
      JSON.stringify({ query: 'query($slug: String!) { event(slug: $slug) { id } }', variables: { slug: 7 } }),
      JSON_ONLY,
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as ErrorBody).errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
  });
});

test('a concurrent burst of good and hostile requests: every answer is a 200 or a 4xx, all fast', async () => {
  const good = JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } });
  const bodies = [
    good,
    '{"query": ',
    JSON.stringify({ query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: viewer { tokenKind }`).join(' ')} }` }),
    JSON.stringify({ query: `{ viewer { ${'tokenKind '.repeat(600)} } }` }),
    JSON.stringify({ query: 'query { viewer { ...A } } fragment A on Viewer { ...A }' }),
    JSON.stringify([{ query: '{ viewer { tokenKind } }' }]),
  ];
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) => send(bodies[i % bodies.length]!).then((r) => r.status)),
  );
  expect(Date.now() - started).toBeLessThan(BURST_MS);
  for (const status of answers) expect(status === 200 || (status >= 400 && status < 500)).toBe(true);
  expect(answers.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
});

describe.each(HOSTILE.map((h) => [h.name, h] as const))('%s', (_name, h) => {
  test('GraphQL, userinfo and the provider: a 4xx with a reason and a code, never a 5xx', async () => {
    const bearer = { Authorization: `Bearer ${t.fx.tokens.organizerUser}` };
    const basic = {
      Authorization: `Basic ${Buffer.from(`${t.fx.orgApp.clientId}:${t.fx.orgApp.clientSecret}`).toString('base64')}`,
    };
    for (const [path, headers] of [
      ['/graphql', bearer],
      ['/openid/userinfo', bearer],
      ['/openid/userinfo', {}],
      ['/token', basic],
      ['/token', {}],
      ['/token/revocation', basic],
      ['/session/end/confirm', {}],
    ] as const) {
      expectApiAnswer(`POST ${path}`, await sendHostile(`${t.server.url}${path}`, h, {}, headers));
    }
  });
});
