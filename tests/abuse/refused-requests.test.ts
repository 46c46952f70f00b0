import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { REFUSAL_MS } from '../helpers/timing.js';

// What refused requests spend. Refused documents cost the server parsing and validation: they spend a
// point, and once an owner's budget is spent its requests are refused before any of that work. A request
// refused before Apollo, or a mutation (this API has none), spends nothing.
const t = useSeededServer({ RATE_LIMIT_POINTS: '5' });
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));

test('each refusal spends one point; a spent owner gets 429 before its document is even parsed', async () => {
  const token = t.fx.tokens.otherApp;
  const refusals = [
    '{ nope }', // validation
    '{ viewer { ', // parse
    `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ')} }`, // alias limit
    // cost 110, over the maximum of 100
    `{ ${Array.from({ length: 11 }, (_, i) => `e${i}: event(slug: "public-meetup") { registrations(first: 1000) { totalCount } }`).join(' ')} }`,
  ];
  const answers = [];
  for (const query of refusals) answers.push(await gql(t.server, token, query));
  expect(answers.map(remaining)).toEqual([4, 3, 2, 1]);
  expect(answers.map((a) => a.body.errors![0]!.extensions!.code)).toEqual([
    'GRAPHQL_VALIDATION_FAILED',
    'GRAPHQL_PARSE_FAILED',
    'QUERY_TOO_COMPLEX',
    'QUERY_TOO_COMPLEX',
  ]);
  expect(answers[3]!.body.errors![0]!.extensions!.cost).toEqual({ requested: 110, maximum: 100 });

  // The last point goes to a valid query; then the budget is spent.
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(200);
  const over = await gql(t.server, token, '{ viewer { tokenKind } }');
  expect(over.status).toBe(429);

  // Now even text that does not parse is a 429 (RATE_LIMITED, not GRAPHQL_PARSE_FAILED): nothing was parsed.
  const started = Date.now();
  const spent = await gql(t.server, token, '{ viewer { ');
  expect(Date.now() - started).toBeLessThan(REFUSAL_MS);
  expect(spent.status).toBe(429);
  expect(spent.body.errors![0]!.extensions!.code).toBe('RATE_LIMITED');
  expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(remaining(spent)).toBe(0);
  expect(spent.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');

  // Another owner is untouched.
  expect((await gql(t.server, t.fx.tokens.organizerApp, '{ viewer { tokenKind } }')).status).toBe(200);
});

test('a request refused before Apollo (401, bad JSON) spends nothing of anyone', async () => {
  const res = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.fx.tokens.organizerUser}`, 'Content-Type': 'application/json' },
    body: '{"query":',
  });
  expect(res.status).toBe(400);
  const after = await gql(t.server, t.fx.tokens.organizerUser, '{ viewer { tokenKind } }');
  expect(remaining(after)).toBe(4);
});

test('a mutation (this API has none) is refused without spending a point', async () => {
  const mutation = () => gql(t.server, t.fx.tokens.otherUser, 'mutation { anything }');
  const used = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-used'));
  const first = await mutation();
  expect(first.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(used(await mutation())).toBe(used(first));
});
