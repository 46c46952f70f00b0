import { request } from 'node:http';
import { useSeededServer } from './helpers/fixtures.js';
import { SEED_QUERY } from './helpers/graphql.js';
import { startServer } from './helpers/harness.js';

// Hostile and broken requests: each gets a 4xx (or a GraphQL error in a 200) quickly, and the server
// keeps answering correctly afterwards.
const t = useSeededServer();
const CACHE_CONTROL = 'max-age=0, private, must-revalidate';
type ErrorBody = { errors: { message: string; extensions: { code: string } }[] };

const send = (body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json', ...headers },
    body,
  });

async function expectSeedQueryWorks() {
  const res = await send(JSON.stringify({ query: SEED_QUERY, variables: { slug: 'public-meetup' } }));
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { event: { slug: string } } }).data.event).not.toBeNull();
}

afterEach(expectSeedQueryWorks);

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

describe('bodies', () => {
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

  test('an operationName the document lacks: a validation error, with a SPEC code', async () => {
    const res = await send(JSON.stringify({ query: 'query A { viewer { tokenKind } }', operationName: 'B' }), {
      Accept: 'application/graphql-response+json',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.errors[0]).toMatchObject({
      message: 'Unknown operation named "B".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  test('a batch (JSON array): 400 saying to send one operation per request', async () => {
    const res = await send(JSON.stringify([{ query: '{ viewer { tokenKind } }' }, { query: '{ viewer { scopes } }' }]));
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors[0]!.message).toMatch(/one operation per request/);
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
});

describe('headers', () => {
  test('headers over 16 kB: 431 from Node, before any work', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${t.server.url}/graphql`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Padding': 'a'.repeat(20_000) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(431);
  });

  test.each([
    ['empty', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a 10 kB token', `Bearer ${'a'.repeat(10_000)}`],
    ['two tokens', 'Bearer a b'],
  ])('Authorization %s: 401 with WWW-Authenticate', async (_name, value) => {
    const res = await send(JSON.stringify({ query: '{ viewer { tokenKind } }' }), { Authorization: value });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="roster"/);
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
  expect(Date.now() - started).toBeLessThan(5000);
  for (const status of answers) expect(status === 200 || (status >= 400 && status < 500)).toBe(true);
  expect(answers.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
});

describe('per-request time limit', () => {
  test('a request over REQUEST_TIMEOUT_MS is answered 503 with a clear error, and the server carries on', async () => {
    const slow = await startServer({ REQUEST_TIMEOUT_MS: '200' });
    try {
      const owner = await slow.stores.users.create({ email: 'slow@example.com', name: 'Slow' });
      const { appToken } = await slow.stores.apps.create({
        ownerId: owner.id,
        name: 'Slow',
        redirectUris: ['https://s.example/cb'],
      });
      // A client that sends its body slowly: half now, the rest never.
      const body = JSON.stringify({ query: '{ viewer { tokenKind } }' });
      const started = Date.now();
      const answer = await new Promise<{ status: number; text: string; requestId: string }>((resolve, reject) => {
        const url = new URL(`${slow.url}/graphql`);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              Authorization: `Bearer ${appToken}`,
              'Content-Type': 'application/json',
              'Content-Length': String(body.length),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode!, text, requestId: String(res.headers['x-request-id']) }),
            );
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 10));
      });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(answer.status).toBe(503);
      const parsed = JSON.parse(answer.text) as { errors: { message: string; extensions: Record<string, string> }[] };
      expect(parsed.errors[0]!.message).toBe('The request took longer than 200 ms and was abandoned; try again.');
      expect(parsed.errors[0]!.extensions).toEqual({ code: 'REQUEST_TIMEOUT', requestId: answer.requestId });

      // The process carries on and counts what happened.
      expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
      const metrics = await (await fetch(`${slow.url}/metrics`)).text();
      expect(metrics).toMatch(/roster_rejections_total\{reason="timeout"\} 1/);
    } finally {
      await slow.close();
    }
  });
});

test('field suggestions ("Did you mean") are off in production, on in development', async () => {
  const query = JSON.stringify({ query: '{ evnt(slug: "x") { id } }' });
  const dev = (await (await send(query)).json()) as ErrorBody;
  expect(dev.errors[0]!.message).toMatch(/Did you mean "event"/);
  const prod = await startServer({ NODE_ENV: 'production' });
  try {
    const owner = await prod.stores.users.create({ email: 'p@example.com', name: 'P' });
    const { appToken } = await prod.stores.apps.create({
      ownerId: owner.id,
      name: 'P',
      redirectUris: ['https://p.example/cb'],
    });
    const res = await fetch(`${prod.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      body: query,
    });
    const body = (await res.json()) as ErrorBody;
    expect(body.errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(body.errors[0]!.message).not.toMatch(/Did you mean/);
  } finally {
    await prod.close();
  }
});
