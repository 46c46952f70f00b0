import { startServer, type TestServer } from '../helpers/harness.js';
import { REFUSAL_MS } from '../helpers/timing.js';

// Hostile preflights get the fixed policy: nothing from the request is reflected into the answer.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const POLICY = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET,POST,OPTIONS',
  'access-control-allow-headers': 'Authorization,Content-Type,Accept,If-None-Match,X-Request-Id,Last-Event-ID',
  'access-control-max-age': '86400',
};

async function preflight(path: string, headers: Record<string, string>) {
  const started = Date.now();
  const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers });
  const answer = Object.fromEntries(Object.keys(POLICY).map((name) => [name, res.headers.get(name)]));
  return { res, answer, ms: Date.now() - started };
}

const HOSTILE: [string, Record<string, string>][] = [
  [
    'a huge Access-Control-Request-Headers',
    {
      Origin: 'https://a.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': Array.from({ length: 900 }, (_, i) => `x-h${i}`).join(','),
    },
  ],
  [
    'odd request headers',
    {
      Origin: 'https://a.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-evil, ,,;;"<script>", cookie',
    },
  ],
  ['Origin: null', { Origin: 'null', 'Access-Control-Request-Method': 'POST' }],
  ['a method outside the policy', { Origin: 'https://a.example', 'Access-Control-Request-Method': 'DELETE' }],
  [
    'an origin with odd characters',
    { Origin: 'https://a.example%0d%0aSet-Cookie:x=1', 'Access-Control-Request-Method': 'POST' },
  ],
  ['no Origin at all', {}],
];

describe.each(['/graphql', '/openid/userinfo'])('OPTIONS %s', (path) => {
  test.each(HOSTILE)('%s: 204 with the fixed policy, nothing reflected', async (_name, headers) => {
    const { res, answer, ms } = await preflight(path, headers);
    expect(res.status).toBe(204);
    expect(answer).toEqual(POLICY);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(ms).toBeLessThan(REFUSAL_MS);
  });
});

test('the server carries on after the hostile preflights', async () => {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
});
