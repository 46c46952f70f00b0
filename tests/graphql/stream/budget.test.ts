import { mintAccessToken } from '../../../src/oidc/mint-token.js';
import { addRegistrants, useSeededServer } from '../../helpers/fixtures.js';
import { gql } from '../../helpers/graphql.js';
import { closeStreams, expectEndedWith, nextsOf, openStream, type RawStream } from '../../helpers/streams.js';

// A stream spends its owner's hourly budget as /graphql does: its selection's cost when it opens, then a
// point per 100 nodes of the changes it sends (only those it sends); once spent, the stream ends with
// RATE_LIMITED and the next request of that owner is a 429.
const POINTS = 40;
const t = useSeededServer({ RATE_LIMIT_POINTS: String(POINTS) });
afterEach(closeStreams);

/** 1000 nodes a change: 10 points to open, 10 for each change sent. */
const HEAVY = 'subscription { changes { cursor event { registrations(first: 1000) { totalCount } } } }';
/** No list at all: one node a change, a point to open. */
const LIGHT = 'subscription { changes { cursor } }';

/** What the owner has spent: a /graphql request's X-RateLimit-Used, less that request's own point. */
async function spent(token: string): Promise<number> {
  const res = await gql(t.server, token, '{ viewer { tokenKind } }');
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-ratelimit-used')) - 1;
}

let n = 0;
const register = async () => {
  n += 1;
  const user = await t.server.stores.users.create({ email: `budget${n}@example.com`, name: `Budget ${n}` });
  await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
};

const expectBudgetHeaders = (stream: RawStream, used: number) => {
  const h = (name: string) => Number(stream.headers.get(name));
  expect([h('x-ratelimit-limit'), h('x-ratelimit-used'), h('x-ratelimit-remaining')]).toEqual([
    POINTS,
    used,
    POINTS - used,
  ]);
  const reset = h('x-ratelimit-reset') * 1000;
  expect(reset).toBeGreaterThan(Date.now());
  expect(reset).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
};

test('opening spends the selection’s cost (the 200’s X-RateLimit-* say so); each change sent costs its nodes', async () => {
  const token = t.fx.tokens.organizerApp;
  const stream = await openStream(t.server, token, { query: HEAVY });
  expect(stream.status).toBe(200);
  expectBudgetHeaders(stream, 10);
  await register();
  await register();
  await stream.next(2, 2000);
  expect(await spent(token)).toBe(10 + 2 * 10);
});

test('a light selection: one point to open, then a point per 100 changes', async () => {
  // The organizer at another app: an owner of its own, with a budget of its own.
  const { access_token: token } = await mintAccessToken(t.server.provider, {
    accountId: t.fx.organizer.uid,
    clientId: t.fx.otherApp.clientId,
    scope: 'openid',
  });
  const stream = await openStream(t.server, token, { query: LIGHT });
  expectBudgetHeaders(stream, 1);
  await addRegistrants(t.server, t.fx.publicEvent.id, 99, { prefix: 'light', name: 'Light' });
  await stream.next(99, 5000);
  expect(await spent(token)).toBe(1);
  await register();
  await stream.next(100, 2000);
  // The stream's first point, the query's, and the hundredth change's.
  expect(await spent(token)).toBe(1 + 1 + 1);
});

test('changes a stream may not see cost nothing', async () => {
  const token = t.fx.tokens.otherApp;
  const stream = await openStream(t.server, token, { query: 'subscription { changes { cursor type } }' });
  expectBudgetHeaders(stream, 1);
  // Registrations (of an event it does not organize) are not for it: 150 of them, none sent, none charged.
  await addRegistrants(t.server, t.fx.privateEvent.id, 150, { prefix: 'unseen', name: 'Unseen' });
  const { publicEvent } = t.fx;
  await t.server.stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: 'Public Meetup (budget)' });
  const [only] = await stream.next(1, 2000);
  expect(only!.data).toMatch(/EVENT_UPDATED/);
  // 151 changes would have cost a point; the one sent costs none yet.
  expect(await spent(token)).toBe(1);
});

test('a spent budget ends the stream with RATE_LIMITED, then complete; the next open is a 429', async () => {
  const token = t.fx.tokens.organizerUser;
  const stream = await openStream(t.server, token, { query: HEAVY });
  expectBudgetHeaders(stream, 10);
  // 10 to open and 10 a change: the fourth change would make 50 of 40.
  for (let i = 0; i < 4; i++) await register();
  const { errors } = await expectEndedWith(stream, 'RATE_LIMITED');
  expect(errors![0]!.message).toMatch(/Rate limit of 40 points per hour exceeded/);
  expect(nextsOf(stream.events)).toHaveLength(4);
  expect(nextsOf(stream.events).filter((e) => e.id)).toHaveLength(3);

  const again = await openStream(t.server, token, { query: LIGHT });
  expect(again.status).toBe(429);
  const retryAfter = Number(again.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(0);
  expect(JSON.parse(again.text!)).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
  // The same budget at /graphql: spent there too.
  expect((await gql(t.server, token, '{ viewer { tokenKind } }')).status).toBe(429);
  // Another owner is not held back.
  const other = await openStream(t.server, t.fx.tokens.otherUser, { query: LIGHT });
  expect(other.status).toBe(200);
});
