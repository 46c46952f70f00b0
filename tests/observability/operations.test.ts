import { seedFixtures, type Fixtures } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type TestServer } from '../helpers/harness.js';
import { capturedLog } from '../helpers/log-lines.js';
import { until } from '../helpers/wait.js';

// Logs and metrics, read the way an operator would: JSON lines and a Prometheus scrape.
let server: TestServer;
let fx: Fixtures;
const { logger, lines } = capturedLog();

beforeAll(async () => {
  server = await startServer({}, { logger });
  fx = await seedFixtures(server);
});
afterAll(() => server.close());

const requestLine = (requestId: string) => lines.find((l) => l.msg === 'request' && l.requestId === requestId);

test('one JSON log line per request: request id, token kind, operation, status, duration; never the token', async () => {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${fx.tokens.organizerUser}`,
      'Content-Type': 'application/json',
      'X-Request-Id': 'log-test-1',
    },
    body: JSON.stringify({ query: 'query WhoAmI { viewer { tokenKind } }', operationName: 'WhoAmI' }),
  });
  expect(res.status).toBe(200);
  await new Promise((resolve) => setImmediate(resolve));
  expect(requestLine('log-test-1')).toMatchObject({
    method: 'POST',
    path: '/graphql',
    status: 200,
    tokenKind: 'user',
    operationName: 'WhoAmI',
    cost: 1,
    durationMs: expect.any(Number),
  });
  expect(JSON.stringify(lines)).not.toContain(fx.tokens.organizerUser);
});

test("a GraphQL request's line says whether its answer was replayed or computed", async () => {
  const ask = (id: string) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${fx.tokens.organizerUser}`,
        'Content-Type': 'application/json',
        'X-Request-Id': id,
      },
      body: JSON.stringify({ query: '{ event(slug: "public-meetup") { name } }' }),
    });
  expect((await ask('log-replay-1')).status).toBe(200);
  expect((await ask('log-replay-2')).status).toBe(200);
  await until(() => requestLine('log-replay-2') !== undefined, 'the second line');
  expect(requestLine('log-replay-1')).toMatchObject({ replay: 'miss' });
  expect(requestLine('log-replay-2')).toMatchObject({ replay: 'hit' });
});

test('a rejected token is logged without the token', async () => {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      Authorization: 'Bearer secret-looking-value',
      'Content-Type': 'application/json',
      'X-Request-Id': 'log-test-2',
    },
    body: '{"query":"{ viewer { tokenKind } }"}',
  });
  expect(res.status).toBe(401);
  await new Promise((resolve) => setImmediate(resolve));
  expect(requestLine('log-test-2')).toMatchObject({ status: 401 });
  expect(requestLine('log-test-2')!.tokenKind).toBeUndefined();
  expect(JSON.stringify(lines)).not.toContain('secret-looking-value');
});

test('/metrics counts requests by route, operation and status, and shows the pool', async () => {
  await gql(server, fx.tokens.organizerApp, 'query Probe { viewer { tokenKind } }');
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  expect(text).toMatch(/roster_http_requests_total\{route="\/graphql",operation="Probe",status="200"\} 1/);
  expect(text).toMatch(
    /roster_http_request_duration_seconds_bucket\{le="\+Inf",route="\/graphql",operation="Probe",status="200"\} 1/,
  );
  expect(text).toMatch(/roster_http_requests_total\{route="\/graphql",operation="",status="401"\} \d+/);
  expect(text).toMatch(/roster_db_pool_connections\{state="used"\} \d+/);
});

test('label values stay bounded: 1,500 fresh operation names keep /metrics small, the rest count as other', async () => {
  const before = (await (await fetch(`${server.url}/metrics`)).text()).length;
  const ask = (i: number) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fx.tokens.organizerApp}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: `query Fresh${i} { viewer { tokenKind } }` }),
    }).then((r) => r.status);
  for (let i = 0; i < 1500; i += 50) {
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, j) => ask(i + j)));
    expect(statuses.every((s) => s === 200)).toBe(true);
  }
  const text = await (await fetch(`${server.url}/metrics`)).text();
  // At most MAX_OPERATION_LABELS (50) names of series: tens of kB, not megabytes.
  expect(text.length - before).toBeLessThan(200_000);
  const named = new Set([...text.matchAll(/roster_http_requests_total\{[^}]*operation="([^"]*)"/g)].map((m) => m[1]));
  expect(named.size).toBeLessThanOrEqual(50 + 2 + 1); // + '' and 'anonymous', + 'other'
  const other = /roster_http_requests_total\{route="\/graphql",operation="other",status="200"\} (\d+)/.exec(text);
  expect(Number(other?.[1])).toBeGreaterThanOrEqual(1500 - 50);
  // The first names seen keep their own series.
  expect(text).toMatch(/operation="Fresh0"/);
}, 120_000);

test("account pages are their own route label, not the provider's", async () => {
  expect((await fetch(`${server.url}/account`)).status).toBe(200);
  const text = await (await fetch(`${server.url}/metrics`)).text();
  expect(text).toMatch(/roster_http_requests_total\{route="\/account",operation="",status="200"\} 1/);
});

describe('a real fault: the database goes away', () => {
  test('every 5xx is logged with its error, stack and request id; the client gets the id, never the detail', async () => {
    const { logger: brokenLogger, lines: log } = capturedLog();
    const broken = await startServer({}, { logger: brokenLogger });
    try {
      const own = await seedFixtures(broken);
      // A signed-in account page and a started sign-in, while the database still answers.
      const form = await fetch(`${broken.url}/account`);
      const cookie = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      await broken.db.destroy();

      const basic = `Basic ${Buffer.from(`${own.orgApp.clientId}:${own.orgApp.clientSecret}`).toString('base64')}`;
      const requests: [string, RequestInit][] = [
        ['/readyz', {}],
        [
          '/graphql',
          {
            method: 'POST',
            headers: { Authorization: `Bearer ${own.tokens.organizerApp}`, 'Content-Type': 'application/json' },
            body: '{"query":"{ viewer { tokenKind } }"}',
          },
        ],
        ['/openid/userinfo', { headers: { Authorization: `Bearer ${own.tokens.organizerUser}` } }],
        [
          '/account/login',
          {
            method: 'POST',
            headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ _csrf: csrf, email: 'org@example.com', password: 'whatever it is' }).toString(),
          },
        ],
        [
          '/token',
          {
            method: 'POST',
            headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=refresh_token&refresh_token=abc',
          },
        ],
      ];
      const seen = [];
      for (const [path, init] of requests) {
        const res = await fetch(`${broken.url}${path}`, { ...init, redirect: 'manual' });
        const text = await res.text();
        const requestId = res.headers.get('x-request-id')!;
        await new Promise((resolve) => setImmediate(resolve));
        const logged = log.find((l) => l.level === 50 && l.requestId === requestId) as
          { err?: { stack?: string } } | undefined;
        seen.push({
          path,
          status: res.status,
          // The client may quote the id; nothing of the failure leaks (no stack frame, SQL or driver message).
          quotesId: text.includes(requestId),
          leaks: /\bat \S+ \(|select |Unable to acquire|knex|pool/i.test(text),
          loggedWithStack: /\n\s+at /.test(logged?.err?.stack ?? ''),
        });
      }
      expect(seen).toEqual(
        requests.map(([path]) => ({
          path,
          status: path === '/readyz' ? 503 : 500,
          // The provider's own 500 body has no room for it: the X-Request-Id header carries it there.
          quotesId: path !== '/readyz' && path !== '/token',
          leaks: false,
          loggedWithStack: true,
        })),
      );
    } finally {
      await broken.close();
    }
  });
});

describe('DATABASE_POOL_MAX', () => {
  test('sizes the PostgreSQL pool; SQLite keeps its one connection; bad values are refused at start', async () => {
    const sized = await startServer({ DATABASE_POOL_MAX: '3' });
    try {
      const pool = sized.db.client.pool as { max: number };
      expect(sized.config.databasePoolMax).toBe(3);
      expect(pool.max).toBe(process.env.TEST_DATABASE_URL ? 3 : 1);
      // The gauge reports the same pool.
      const metrics = await (await fetch(`${sized.url}/metrics`)).text();
      expect(metrics).toMatch(/roster_db_pool_connections\{state="used"\} \d+/);
    } finally {
      await sized.close();
    }
    for (const bad of ['0', 'many', '-1']) {
      expect(() => loadConfig({ DATABASE_POOL_MAX: bad }, false)).toThrow(/DATABASE_POOL_MAX/);
    }
  });
});
