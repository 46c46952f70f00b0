import { encodeChangeCursor, encodeCursor } from '../../../src/graphql/pagination.js';
import { changeFeed } from '../../helpers/changes.js';
import { addRegistrants, useSeededServer } from '../../helpers/fixtures.js';
import {
  closeStreams,
  expectEndedWith,
  nextsOf,
  openStream,
  payloadOf,
  positionOf,
  positionsOf,
  refusalOf,
} from '../../helpers/streams.js';

// Last-Event-ID: a client that reconnects with the cursor of the last change it got first receives every
// change it missed that is still kept, in order, then live ones, with no gap and no duplicate; a cursor this
// API never gave out is refused before the stream opens, one past the head or pruned ends the stream at once.
const t = useSeededServer();
const { feed, head } = changeFeed(t);
afterEach(closeStreams);

const CURSORS = { query: 'subscription { changes { cursor } } ' };
const resume = (lastEventId: string, body: Record<string, unknown> = CURSORS) =>
  openStream(t.server, t.fx.tokens.organizerUser, body, { 'Last-Event-ID': lastEventId });

let n = 0;
const register = async () => {
  n += 1;
  const user = await t.server.stores.users.create({ email: `resume${n}@example.com`, name: `Resume ${n}` });
  await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
};

/** Every position after `after` up to `through` that Query.changes gives the organizer, paging as a client does. */
async function feedPositions(after: string, through: number): Promise<number[]> {
  const positions: number[] = [];
  let cursor = after;
  while (positionOf(cursor) < through) {
    const page = await feed('organizerUser', { after: cursor, first: 1000 });
    positions.push(...page.nodes.map((c) => positionOf(c.cursor)));
    cursor = page.pageInfo.endCursor;
  }
  return positions.filter((p) => p <= through);
}

test('from a recent cursor: the changes missed, in order, then live ones, each once', async () => {
  const watcher = await openStream(t.server, t.fx.tokens.organizerUser, CURSORS);
  for (let i = 0; i < 3; i++) await register();
  const seen = await watcher.next(3, 2000);
  const stream = await resume(seen[0]!.id!);
  expect(stream.status).toBe(200);
  await stream.next(2, 2000);
  await register();
  await stream.next(3, 2000);
  await watcher.next(4, 2000);
  expect(stream.events.map((e) => e.id)).toEqual(watcher.events.slice(1).map((e) => e.id));
  expect(nextsOf(stream.events).map((e) => payloadOf(e).data!.changes.cursor)).toEqual(stream.events.map((e) => e.id));
  // An empty Last-Event-ID is none: the stream starts from now.
  const fresh = await resume('');
  await register();
  const [only] = await fresh.next(1, 2000);
  await watcher.next(5, 2000);
  expect(only!.id).toBe(watcher.events[4]!.id);
});

test('through thousands of changes, some committing during the catch-up: exactly the positions Query.changes gives', async () => {
  const mark = await head();
  const { publicEvent, privateEvent } = t.fx;
  let writing = true;
  const writes = (async () => {
    await addRegistrants(t.server, publicEvent.id, 3000, { prefix: 'bulkres', name: 'Bulk' });
    for (let i = 0; i < 6; i++) {
      await addRegistrants(t.server, i % 2 ? publicEvent.id : privateEvent.id, 150, {
        prefix: `more${i}x`,
        name: `More ${i}`,
      });
      await register();
    }
    writing = false;
  })();
  // Connects while the bulk insert runs, and keeps reading while the rest commits.
  const stream = await resume(mark);
  expect(stream.status).toBe(200);
  expect(writing).toBe(true);
  await writes;
  const through = positionOf(await head());
  await stream.until(
    (events) => events.length > 0 && positionOf(events.at(-1)!.id!) >= through,
    'the stream reached the head',
    20_000,
  );
  const positions = positionsOf(stream.events);
  const expected = await feedPositions(mark, through);
  expect(expected.length).toBeGreaterThanOrEqual(3000 + 6 * 151);
  expect(positions).toEqual(expected);
  expect(stream.events.every((e) => e.event === 'next' && e.id === payloadOf(e).data!.changes.cursor)).toBe(true);
}, 30_000);

describe('a Last-Event-ID this API never gave out: 400 before any stream opens', () => {
  const chg = (text: string) => Buffer.from(text).toString('base64url');
  test.each([
    ['garbage', 'garbage!'],
    ['an events cursor', encodeCursor(1, 'evt')],
    ['a negative position', chg('chg:-1')],
    ['a fraction', chg('chg:1.5')],
    ['a long value', 'a'.repeat(2000)],
  ])('%s', async (_name, lastEventId) => {
    const res = await refusalOf(t.server, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.fx.tokens.organizerUser}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'last-event-id': lastEventId,
      },
      body: JSON.stringify(CURSORS),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.errors![0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors![0]!.message).toMatch(/Last-Event-ID/);
  });
});

test('a cursor past the head: the stream’s one result is BAD_USER_INPUT, then complete', async () => {
  const stream = await resume(encodeChangeCursor(positionOf(await head()) + 1_000_000));
  expect(stream.status).toBe(200);
  const { errors } = await expectEndedWith(stream, 'BAD_USER_INPUT');
  expect(errors![0]!.extensions).toMatchObject({ argumentName: 'Last-Event-ID' });
  expect(nextsOf(stream.events)).toHaveLength(1);
});

test('a cursor older than the changes kept: CHANGES_EXPIRED, then complete; a cursor at the head still resumes', async () => {
  const old = encodeChangeCursor(1);
  // A cutoff a day ahead of the retention: every change recorded so far is dropped.
  expect(
    await t.server.services.changes.prune(Date.now() + (t.server.config.changesRetentionDays + 1) * 86_400_000),
  ).toBeGreaterThan(0);
  const stream = await resume(old);
  expect(stream.status).toBe(200);
  const { errors } = await expectEndedWith(stream, 'CHANGES_EXPIRED');
  expect(errors![0]!.extensions).toMatchObject({ argumentName: 'Last-Event-ID' });
  const kept = await resume(await head());
  await register();
  const [next] = await kept.next(1, 2000);
  expect(next!.event).toBe('next');
  expect(positionOf(next!.id!)).toBe(positionOf(await head()));
});
