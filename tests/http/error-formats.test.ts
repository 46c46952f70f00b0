import { startServer, type TestServer } from '../helpers/harness.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';

// Each route family answers its failures in its own format: the pages (ours and oidc-provider's sign-in and
// sign-out) with our HTML error page, everything else with the GraphQL-shaped JSON error.

async function anAppToken(server: TestServer): Promise<string> {
  const owner = await server.stores.users.create({ email: 'owner@example.com', name: 'Owner' });
  const app = await server.stores.apps.create({
    ownerId: owner.id,
    name: 'App',
    redirectUris: ['https://a.example/cb'],
  });
  return app.appToken;
}

const expectErrorPage = (answer: RawAnswer, status: number, code: string) => {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'/);
  expect(answer.body).toContain('<h1>Something went wrong</h1>');
  expect(answer.body).toContain(`Error: <code>${code}</code>`);
  // The request id to quote is on the page, the same one as in X-Request-Id (and the log line).
  expect(answer.headers['x-request-id']).toMatch(/^[\w-]{36}$/);
  expect(answer.body).toContain(`request <code>${answer.headers['x-request-id']}</code>`);
};

const expectJsonError = (answer: RawAnswer, status: number, extensions: Record<string, string>, message: string) => {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(answer.body)).toEqual({ errors: [{ message, extensions }] });
};

describe('a request over REQUEST_TIMEOUT_MS', () => {
  let slow: TestServer;
  let appToken: string;
  beforeAll(async () => {
    slow = await startServer({ REQUEST_TIMEOUT_MS: '200' });
    appToken = await anAppToken(slow);
  });
  afterAll(() => slow.close());

  const MESSAGE = 'The request took longer than 200 ms and was abandoned; try again.';

  /** A POST whose body never finishes arriving: nothing can answer it but the timeout. */
  const stalledPost = (path: string, type: string) =>
    rawRequest(slow.url, [
      `POST ${path} HTTP/1.1\r\nHost: ${new URL(slow.url).host}\r\nContent-Type: ${type}\r\n` +
        `Authorization: Bearer ${appToken}\r\nContent-Length: 100\r\n\r\nemail=a`,
    ]);

  test.each([['/account/login'], ['/interaction/some-uid/login'], ['/session/end/confirm']])(
    'on the page route %s: 503 with our HTML error page, Retry-After and the request id',
    async (path) => {
      const answer = await stalledPost(path, 'application/x-www-form-urlencoded');
      expectErrorPage(answer, 503, 'REQUEST_TIMEOUT');
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers.connection).toBe('close');
      expect(answer.body).toContain(MESSAGE);
      expect(answer.ms).toBeLessThan(2000);
    },
  );

  test.each([
    ['/graphql', 'application/json'],
    ['/token', 'application/x-www-form-urlencoded'],
  ])('on %s: 503 with the JSON error, Retry-After and the request id', async (path, type) => {
    const answer = await stalledPost(path, type);
    const requestId = answer.headers['x-request-id']!;
    expectJsonError(answer, 503, { code: 'REQUEST_TIMEOUT', requestId }, MESSAGE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers.connection).toBe('close');
  });
});

describe('a failure inside a route (the database gone)', () => {
  let broken: TestServer;
  let appToken: string;
  beforeAll(async () => {
    broken = await startServer();
    appToken = await anAppToken(broken);
    await broken.db.schema.renameTable('app_tokens', 'app_tokens_gone');
    await broken.db.schema.renameTable('account_sessions', 'account_sessions_gone');
  });
  afterAll(() => broken.close());

  const get = (path: string, header: string) =>
    rawRequest(broken.url, [
      `GET ${path} HTTP/1.1\r\nHost: ${new URL(broken.url).host}\r\n${header}\r\nConnection: close\r\n\r\n`,
    ]);

  test('on a page route: 500 with our error page, the request id and no SQL', async () => {
    const answer = await get('/account', 'Cookie: roster.account=some-session');
    expectErrorPage(answer, 500, 'INTERNAL_SERVER_ERROR');
    expect(answer.body).not.toMatch(/account_sessions|select|sqlite|postgres|stack/i);
  });

  test('on /graphql: 500 with the JSON error and the request id, nothing more', async () => {
    const answer = await get('/graphql?query=%7B__typename%7D', `Authorization: Bearer ${appToken}`);
    const requestId = answer.headers['x-request-id']!;
    expectJsonError(answer, 500, { code: 'INTERNAL_SERVER_ERROR', requestId }, 'Internal server error');
  });
});

describe("every refusal Roster writes itself has its family's one shape", () => {
  let server: TestServer;
  let appToken: string;
  beforeAll(async () => {
    server = await startServer();
    appToken = await anAppToken(server);
  });
  afterAll(() => server.close());

  const post = (path: string, headers: string, body: string) =>
    rawRequest(server.url, [
      `POST ${path} HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n${headers}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    ]);

  test.each([
    ['no bearer token', 401, 'UNAUTHENTICATED', false, 'application/json', '{}'],
    ['a body that is not JSON', 415, 'UNSUPPORTED_MEDIA_TYPE', true, 'text/plain', '{}'],
    ['a batch', 400, 'BAD_REQUEST', true, 'application/json', '[{"query":"{ __typename }"}]'],
    ['JSON that does not parse', 400, 'BAD_REQUEST', true, 'application/json', '{"query":'],
    ['a body over the limit', 413, 'PAYLOAD_TOO_LARGE', true, 'application/json', `"${'x'.repeat(101 * 1024)}"`],
  ])(
    '%s on /graphql: %i %s, as { errors: [{ message, extensions: { code } }] }',
    async (_n, status, code, auth, type, body) => {
      const headers = `Content-Type: ${type}${auth ? `\r\nAuthorization: Bearer ${appToken}` : ''}`;
      const answer = await post('/graphql', headers, body);
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      const parsed = JSON.parse(answer.body) as { errors: { message: string }[] };
      expect(parsed).toEqual({ errors: [{ message: parsed.errors[0]!.message, extensions: { code } }] });
      expect(parsed.errors[0]!.message).toMatch(/^[^\n]{10,200}$/);
    },
  );

  test.each([
    [
      'GET',
      401,
      {
        error: 'invalid_request',
        error_description: 'This endpoint needs a bearer token in the Authorization header.',
      },
    ],
    ['PUT', 405, { error: 'invalid_request', error_description: 'Use GET or POST.' }],
  ])(
    "%s on /openid/userinfo without a token: %i in OAuth's format, { error, error_description }",
    async (method, status, body) => {
      const res = await fetch(`${server.url}/openid/userinfo`, { method });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual(body);
    },
  );
});
