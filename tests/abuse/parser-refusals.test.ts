import { connect, type AddressInfo } from 'node:net';
import { createHttpServer } from '../../src/http/http-server.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { capturedLog } from '../helpers/log-lines.js';
import { postUnfinishedBody, rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { ANSWER_MS, REFUSAL_MS } from '../helpers/timing.js';
import { until } from '../helpers/wait.js';

// Requests refused before any route reads them: what Node's HTTP parser refuses, and senders too slow for
// its timeouts or the app's. Each still gets our JSON error shape and its status; the server carries on.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
afterEach(async () => {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
});

type ErrorBody = { errors: { message: string; extensions: { code: string } }[] };

function expectRefusal(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as ErrorBody;
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.extensions).toEqual({ code });
  expect(body.errors[0]!.message).toMatch(/^[^\n]{10,200}$/);
  expect(answer.ms).toBeLessThan(ANSWER_MS);
}

test('headers over 16 kB: 431 HEADERS_TOO_LARGE', async () => {
  const answer = await rawRequest(server.url, [
    `GET /graphql HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
  ]);
  expectRefusal(answer, 431, 'HEADERS_TOO_LARGE');
  expect(answer.body).toContain('exceed 16 kB');
});

test('a URL over 16 kB: 431 too (Node counts the request line with the headers; there is no separate 414)', async () => {
  const answer = await rawRequest(server.url, [`GET /graphql?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
  expectRefusal(answer, 431, 'HEADERS_TOO_LARGE');
});

test('headers sent in many small pieces that add up to over 16 kB: 431', async () => {
  const pieces = Array.from({ length: 40 }, (_, i) => `X-H${i}: ${'b'.repeat(500)}\r\n`);
  const answer = await rawRequest(server.url, ['GET / HTTP/1.1\r\nHost: x\r\n', ...pieces, '\r\n']);
  expectRefusal(answer, 431, 'HEADERS_TOO_LARGE');
});

test.each([
  ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
  ['an unknown method', 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['an HTTP version that does not exist', 'GET / HTTP/7.3\r\nHost: x\r\n\r\n'],
  ['a header name with a space', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'],
  ['a control character in a header value', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n'],
  [
    'Content-Length twice, differing',
    'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
  ],
  [
    'Content-Length and Transfer-Encoding both',
    'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  ],
  // To a route that reads its body before it answers: /graphql may refuse the missing token first.
  [
    'a chunk size that is not hex',
    'POST /account/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  ],
])('%s: 400 BAD_REQUEST', async (_name, request) => {
  const answer = await rawRequest(server.url, [request]);
  expectRefusal(answer, 400, 'BAD_REQUEST');
  expect(answer.body).toMatch(/The request is not valid HTTP/);
});

test('a bad request after a good one on the same connection: the good one is answered, then the 400', async () => {
  const answer = await rawRequest(server.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'HELLO THERE\r\n\r\n'], {
    pauseMs: 200,
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toContain('{"status":"ok"}');
  expect(answer.body).toContain('HTTP/1.1 400 Bad Request');
  expect(answer.body).toContain('"code":"BAD_REQUEST"');
});

test('clients that hang up halfway through their headers cost nothing: no request, no log line, no socket left', async () => {
  // A server of its own, to count its connections and read everything it logs.
  const { logger, lines } = capturedLog();
  const own = await startServer({}, { logger });
  try {
    const { hostname, port } = new URL(own.url);
    const open = () =>
      new Promise<number>((resolve, reject) => own.http.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    const logged = lines.length;
    const hangUp = () =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          // Handed to the kernel, then hung up: the server reads half the headers, then the end.
          socket.write('GET /graphql HTTP/1.1\r\nHost: x\r\nX-Half: ', () => socket.destroy());
        });
        socket.on('error', reject);
        socket.on('close', () => resolve());
      });
    for (let i = 0; i < 20; i += 1) await Promise.all(Array.from({ length: 10 }, hangUp));
    // Each connection is let go at once: well before the 10 s headers timeout would collect it.
    await until(async () => (await open()) === 0, 'the server letting go of every hung-up connection', 3000);
    expect(lines.slice(logged)).toEqual([]);
    const res = await fetch(`${own.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  } finally {
    await own.close();
  }
});

describe('slow senders (the same server module, with its timeouts shortened)', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const slow = createHttpServer((req, res) => req.resume().on('end', () => res.end('ok')), {
      headersTimeout: 300,
      requestTimeout: 600,
      connectionsCheckingInterval: 50,
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    close = () =>
      new Promise((resolve) => {
        slow.closeAllConnections();
        slow.close(() => resolve());
      });
  });
  afterAll(() => close());

  test('headers not finished in time: 408 REQUEST_TOO_SLOW', async () => {
    // The rest would come after 10 s: the 408 comes from the server's own 300 ms timer, far sooner.
    const answer = await rawRequest(url, ['GET / HTTP/1.1\r\n', 'Host: x\r\n'], { pauseMs: 10_000 });
    expectRefusal(answer, 408, 'REQUEST_TOO_SLOW');
  });

  test('a body not finished in time: 408 REQUEST_TOO_SLOW', async () => {
    const answer = await rawRequest(url, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab'], {
      pauseMs: 2000,
    });
    expectRefusal(answer, 408, 'REQUEST_TOO_SLOW');
  });
});

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
    const answer = await postUnfinishedBody(
      `${slow.url}/graphql`,
      { Authorization: `Bearer ${appToken}`, 'Content-Type': 'application/json' },
      body.slice(0, 10),
      body.length,
    );
    expect(Date.now() - started).toBeLessThan(REFUSAL_MS);
    expect(answer.status).toBe(503);
    const parsed = JSON.parse(answer.text) as { errors: { message: string; extensions: Record<string, string> }[] };
    expect(parsed.errors[0]!.message).toBe('The request took longer than 200 ms and was abandoned; try again.');
    expect(parsed.errors[0]!.extensions).toEqual({
      code: 'REQUEST_TIMEOUT',
      requestId: answer.headers['x-request-id'],
    });

    // The process carries on and counts what happened.
    expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${slow.url}/metrics`)).text();
    expect(metrics).toMatch(/roster_rejections_total\{reason="timeout"\} 1/);
  } finally {
    await slow.close();
  }
});
