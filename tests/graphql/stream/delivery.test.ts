import { changeFeed, type ChangeNode } from '../../helpers/changes.js';
import { useSeededServer } from '../../helpers/fixtures.js';
import { until } from '../../helpers/wait.js';
import {
  closeStreams,
  nextsOf,
  openStream,
  payloadOf,
  positionOf,
  positionsOf,
  subscribeWithClient,
  type RawStream,
} from '../../helpers/streams.js';

// What an open stream receives: each change within a second of its commit, its SSE id the change's cursor,
// in log order and once, as Query.changes shows it; the filters; and heartbeats while nothing happens.
const t = useSeededServer();
const { feed, head } = changeFeed(t);
afterEach(closeStreams);

/** A feed node as the stream's selection shows it. */
const asStreamed = ({ cursor, type, eventSlug, event, registration, registrant }: ChangeNode) => ({
  cursor,
  type,
  eventSlug,
  event,
  registration,
  registrant,
});

/** The changes after `mark`, as Query.changes gives them to the organizer. */
const feedAfter = async (mark: string, variables: Record<string, unknown> = {}) =>
  (await feed('organizerUser', { after: mark, first: 1000, ...variables })).nodes;

const streamed = (stream: RawStream) => nextsOf(stream.events).map((e) => payloadOf(e).data!.changes);

/** Which change it is, whatever state its objects were in when sent. */
const which = (c: { cursor: string; type: string; eventSlug: string }) => `${c.type} ${c.eventSlug} ${c.cursor}`;

let n = 0;
const newUser = () => {
  n += 1;
  return t.server.stores.users.create({ email: `deliver${n}@example.com`, name: `Deliver ${n}` });
};

test('each change arrives within a second of its commit, its SSE id its cursor, as Query.changes shows it', async () => {
  const stream = await openStream(t.server, t.fx.tokens.organizerUser);
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(stream.headers.get('cache-control')).toBe('no-store');
  const { stores } = t.server;
  const guest = await newUser();
  const writes = [
    () => stores.registrations.create(t.fx.publicEvent.id, guest.id),
    () => stores.users.update(guest.id, { name: 'Deliver Renamed' }),
    () => stores.registrations.delete(t.fx.publicEvent.id, guest.id),
  ];
  let mark = await head();
  for (const [i, write] of writes.entries()) {
    await write();
    const committed = performance.now();
    const event = (await stream.next(i + 1, 1000))[i]!;
    expect(performance.now() - committed).toBeLessThan(1000);
    const change = payloadOf(event).data!.changes;
    expect(event.id).toBe(change.cursor);
    // Shown as the feed shows the same change at the same moment: the objects as they are now.
    const [node] = await feedAfter(mark);
    expect(change).toEqual(asStreamed(node!));
    mark = change.cursor;
  }
  expect(streamed(stream).map((c) => c.type)).toEqual([
    'REGISTRATION_CREATED',
    'REGISTRANT_UPDATED',
    'REGISTRATION_DELETED',
  ]);
  expect(streamed(stream)[0]).toMatchObject({
    registration: { id: expect.any(String) },
    registrant: { name: guest.name, email: guest.email },
  });
  expect(streamed(stream)[2]).toMatchObject({ registration: null });
  expect(stream.done).toBe(false);
});

test('changes of one transaction and of concurrent transactions arrive in log order, each once', async () => {
  const mark = await head();
  const stream = await openStream(t.server, t.fx.tokens.organizerUser);
  const { publicEvent, privateEvent } = t.fx;
  const [a, ...others] = await Promise.all([newUser(), newUser(), newUser(), newUser(), newUser()]);
  await t.server.db.transaction(async (trx) => {
    const now = Date.now();
    await trx('registrations').insert([
      { event_id: publicEvent.id, user_id: a.id, created_at: now },
      { event_id: privateEvent.id, user_id: a.id, created_at: now },
    ]);
    // One registrant.updated per event the user is registered for.
    await trx('users').where({ id: a.id }).update({ name: 'Ada Twice' });
    await trx('events').where({ id: publicEvent.id }).update({ name: 'Public Meetup (moved)' });
  });
  await Promise.all(others.map((u) => t.server.stores.registrations.create(publicEvent.id, u.id)));
  await t.server.stores.events.update(privateEvent.id, { slug: privateEvent.slug, name: 'Private Retreat II' });
  const expected = await feedAfter(mark);
  expect(expected).toHaveLength(10);
  await stream.next(expected.length, 3000);
  // Which changes, in log order, each once: their objects are as they were when sent, and the last write (the
  // rename) may commit after the first changes went out.
  expect(streamed(stream).map(which)).toEqual(expected.map(which));
  expect(
    streamed(stream)
      .slice(0, 5)
      .map((c) => `${c.type} ${c.eventSlug}`),
  ).toEqual([
    'REGISTRATION_CREATED public-meetup',
    'REGISTRATION_CREATED private-retreat',
    'REGISTRANT_UPDATED public-meetup',
    'REGISTRANT_UPDATED private-retreat',
    'EVENT_UPDATED public-meetup',
  ]);
  const positions = positionsOf(stream.events);
  expect(positions).toEqual([...positions].sort((x, y) => x - y));
  expect(new Set(positions).size).toBe(positions.length);
  expect(positions[0]).toBeGreaterThan(positionOf(mark));
  // Nothing more comes: each change was sent once.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(nextsOf(stream.events)).toHaveLength(expected.length);
  stream.close();
});

test('filters: `event`, `types` and both give the matching changes, in order', async () => {
  const mark = await head();
  const token = t.fx.tokens.organizerUser;
  const filters = [
    { event: 'private-retreat' },
    { types: ['EVENT_UPDATED', 'REGISTRATION_DELETED'] },
    { event: 'public-meetup', types: ['REGISTRATION_CREATED'] },
    { event: 'no-such-event' },
  ];
  const streams = await Promise.all(filters.map((variables) => openStreamWith(token, variables)));
  const { stores } = t.server;
  const { publicEvent, privateEvent } = t.fx;
  const guest = await newUser();
  await stores.registrations.create(publicEvent.id, guest.id);
  await stores.registrations.create(privateEvent.id, guest.id);
  await stores.events.update(privateEvent.id, { slug: privateEvent.slug, name: 'Private Retreat III' });
  await stores.registrations.delete(publicEvent.id, guest.id);
  await stores.events.update(publicEvent.id, { slug: publicEvent.slug, name: 'Public Meetup III' });
  const expected = await Promise.all(filters.map((variables) => feedAfter(mark, variables)));
  expect(expected.map((e) => e.length)).toEqual([2, 3, 1, 0]);
  for (const [i, stream] of streams.entries()) {
    await stream.next(expected[i]!.length, 3000);
    expect(streamed(stream).map(which)).toEqual(expected[i]!.map(which));
  }
  // A stream of an event without changes got nothing, and is still open.
  expect(streams[3]!.events).toEqual([]);
  expect(streams[3]!.done).toBe(false);
  for (const stream of streams) stream.close();
});

const openStreamWith = (token: string, variables: Record<string, unknown>) =>
  openStream(t.server, token, {
    query: `subscription($event: String, $types: [ChangeType!]) {
      changes(event: $event, types: $types) { cursor type eventSlug event { slug name } registration { id } registrant { name email } } }`,
    variables,
  });

test('a stream opened by GET (as EventSource does) receives changes too', async () => {
  const query = 'subscription { changes(types: [REGISTRATION_CREATED]) { cursor eventSlug } }';
  const stream = await openStream(t.server, t.fx.tokens.organizerApp, { query }, {}, 'GET');
  expect(stream.status).toBe(200);
  const guest = await newUser();
  await t.server.stores.registrations.create(t.fx.publicEvent.id, guest.id);
  const [event] = await stream.next(1, 1000);
  expect(payloadOf(event!).data!.changes).toEqual({ cursor: event!.id, eventSlug: 'public-meetup' });
  stream.close();
});

test('the graphql-sse client receives each change as an execution result', async () => {
  const { live } = t.server.services;
  await until(() => live.open === 0, 'the streams of earlier tests closed', 5000);
  const run = subscribeWithClient(
    t.server,
    t.fx.tokens.organizerUser,
    'subscription { changes { type registrant { name } } }',
  );
  // The client gives no sign of its connection: wait until the server follows the log for it.
  await until(() => live.open === 1, 'the client connected', 5000);
  const guest = await newUser();
  await t.server.stores.registrations.create(t.fx.publicEvent.id, guest.id);
  await until(() => run.results.length === 1, 'the change reached the client', 1000);
  expect(run.results).toEqual([
    { data: { changes: { type: 'REGISTRATION_CREATED', registrant: { name: guest.name } } } },
  ]);
  run.dispose();
});

test('an idle stream gets a heartbeat comment, and stays open', async () => {
  const stream = await openStream(t.server, t.fx.tokens.otherApp, {
    query: 'subscription { changes(event: "no-such-event") { cursor } }',
  });
  await stream.until(() => stream.comments >= 1, 'the opening comment');
  const opened = stream.comments;
  const started = performance.now();
  await stream.until(() => stream.comments > opened, 'a heartbeat', 15_000);
  // graphql-sse's ping, every 12 s: nothing else writes a comment.
  expect(performance.now() - started).toBeGreaterThan(10_000);
  expect(stream.events).toEqual([]);
  expect(stream.done).toBe(false);
  stream.close();
}, 20_000);
