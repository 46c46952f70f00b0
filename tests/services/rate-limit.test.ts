import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// A small budget so the limit is reached in a few requests: 12 points per hour per token owner.
const t = useSeededServer({ RATE_LIMIT_POINTS: '12' });

const header = (res: { headers: Headers }, name: string) => Number(res.headers.get(name));

test('every response carries the budget; Query.rateLimit agrees; over the limit is 429', async () => {
  const token = t.fx.tokens.organizerApp;
  const first = await gql(t.server, token, '{ rateLimit { limit cost remaining used resetAt } }');
  expect(first.status).toBe(200);
  const rl = (first.body.data as { rateLimit: Record<string, unknown> }).rateLimit;
  expect(rl).toMatchObject({ limit: 12, cost: 1, remaining: 11, used: 1 });
  const resetAt = Date.parse(String(rl.resetAt));
  expect(resetAt).toBeGreaterThan(Date.now() + 3500_000);
  expect(header(first, 'x-ratelimit-limit')).toBe(12);
  expect(header(first, 'x-ratelimit-remaining')).toBe(11);
  expect(header(first, 'x-ratelimit-used')).toBe(1);
  expect(header(first, 'x-ratelimit-reset')).toBe(Math.ceil(resetAt / 1000));

  // A page of 900 costs 9 points: 10 of 12 spent.
  const big = await gql(
    t.server,
    token,
    '{ event(slug: "public-meetup") { registrations(first: 900) { totalCount } } }',
  );
  expect(big.status).toBe(200);
  expect(header(big, 'x-ratelimit-used')).toBe(10);

  // A request that fails validation spends one point (it cost work) and reports the budget.
  const invalid = await gql(t.server, token, '{ nope }');
  expect(invalid.status).toBe(200); // a validation error in an application/json answer
  expect(header(invalid, 'x-ratelimit-remaining')).toBe(1);

  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  const over = await gql(t.server, token, '{ viewer { tokenKind } }');
  expect(over.status).toBe(429);
  expect(over.body.data).toBeUndefined();
  expect(over.body.errors![0]!.extensions!.code).toBe('RATE_LIMITED');
  expect(over.body.errors![0]!.message).toMatch(/^Rate limit of 12 points per hour exceeded; it resets at .+\.$/);
  expect(header(over, 'retry-after')).toBeGreaterThan(3500);
  expect(header(over, 'x-ratelimit-remaining')).toBe(0);
  // Operators see the rejection in /metrics.
  const metrics = await (await fetch(`${t.server.url}/metrics`)).text();
  expect(metrics).toMatch(/roster_rejections_total\{reason="rate_limit"\} 1\n/);

  // Another owner has a budget of its own; so does the same user at another app.
  expect((await gql(t.server, t.fx.tokens.otherApp, '{ viewer { tokenKind } }')).status).toBe(200);
  expect((await gql(t.server, t.fx.tokens.organizerUser, '{ viewer { tokenKind } }')).status).toBe(200);
});

test('userinfo spends one point from the same budget and answers 429 when it is gone', async () => {
  const token = t.fx.tokens.otherUser;
  const userinfo = () => fetch(`${t.server.url}/openid/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  const first = await userinfo();
  expect(first.status).toBe(200);
  expect(header(first, 'x-ratelimit-remaining')).toBe(11);
  for (let i = 0; i < 11; i += 1) expect((await userinfo()).status).toBe(200);
  const over = await userinfo();
  expect(over.status).toBe(429);
  expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await over.json()).toMatchObject({ error: 'rate_limited' });
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(429);
});
