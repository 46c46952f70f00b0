import { globalId } from '../../src/lib/ids.js';
import { cli } from '../helpers/cli.js';
import { useSeededServer } from '../helpers/fixtures.js';
import { capturedLog } from '../helpers/log-lines.js';
import { gql, SEED_QUERY } from '../helpers/graphql.js';
import { askReplayed } from '../helpers/replays.js';
import { sqlDuring } from '../helpers/sql.js';

// A registration added or removed drops only the replayed answers that read that event's registrations, that
// user's, or registrations by id (the change log says which); every other answer is still replayed, and no
// answer is ever stale, whoever wrote (this process, the CLI).
// The server's log lines, for what the replay cache says of a change log it cannot read.
const { logger, lines: logged } = capturedLog();
const t = useSeededServer({ RATE_LIMIT_POINTS: '100000' }, { logger });
const PUBLIC = { slug: 'public-meetup' };
const PRIVATE = { slug: 'private-retreat' };
const NAME_QUERY = 'query($slug: String!) { event(slug: $slug) { name } }';
const UNTOUCHED_QUERY = 'query($slug: String!) { event(slug: $slug) { slug name } }';
const COUNT_QUERY = 'query($slug: String!) { event(slug: $slug) { registrations(first: 1) { totalCount } } }';

type Answer = Awaited<ReturnType<typeof gql>>;

/** The statements an answer runs that read events, registrations or users: none for a replay. */
async function dataStatements(fn: () => Promise<unknown>): Promise<string[]> {
  const { sql } = await sqlDuring(t.server.db, fn);
  return sql.filter((s) => /\b(events|registrations|event_organizers|users)\b/i.test(s));
}

/** Asks twice: the second answer must be a replay of the first. */
async function cached(query: string, variables?: Record<string, unknown>, token = t.fx.tokens.organizerUser) {
  const first = await gql(t.server, token, query, variables);
  expect(first.status).toBe(200);
  await expectReplay(first, query, variables, token);
  return first;
}

async function expectReplay(
  before: Answer,
  query: string,
  variables?: Record<string, unknown>,
  token = t.fx.tokens.organizerUser,
) {
  let again!: Answer;
  const statements = await dataStatements(async () => {
    const asked = await askReplayed(logged, () => gql(t.server, token, query, variables));
    expect(asked.replayed).toBe(true);
    again = asked.result;
  });
  expect(statements).toEqual([]);
  expect(again.text).toBe(before.text);
}

/** Asks once: the answer must be computed afresh (which may run no statement: its events kept at this epoch). */
async function computed(query: string, variables?: Record<string, unknown>, token = t.fx.tokens.organizerUser) {
  const { result: answer, replayed } = await askReplayed(logged, () => gql(t.server, token, query, variables));
  expect(replayed).toBe(false);
  expect(answer.status).toBe(200);
  return answer;
}

const registrantNames = (answer: Answer) =>
  (
    answer.body.data as { event: { registrations: { nodes: { registrant: { name: string } }[] } } }
  ).event.registrations.nodes.map((n) => n.registrant.name);

test("a registration added or removed drops its event's answers and keeps the other event's", async () => {
  const publicNames = await cached(SEED_QUERY, PUBLIC);
  const publicName = await cached(NAME_QUERY, PUBLIC);
  const privateNames = await cached(SEED_QUERY, PRIVATE);
  expect(registrantNames(privateNames)).toEqual(['Ann Active']);
  const pat = t.fx.registrants[1]!;

  await t.server.stores.registrations.create(t.fx.privateEvent.id, pat.id);
  await expectReplay(publicNames, SEED_QUERY, PUBLIC);
  await expectReplay(publicName, NAME_QUERY, PUBLIC);
  const added = await computed(SEED_QUERY, PRIVATE);
  expect(registrantNames(added)).toEqual(['Ann Active', 'Pat Pending']);

  await t.server.stores.registrations.delete(t.fx.privateEvent.id, pat.id);
  await expectReplay(publicNames, SEED_QUERY, PUBLIC);
  expect(registrantNames(await computed(SEED_QUERY, PRIVATE))).toEqual(['Ann Active']);
});

test("a registration by the CLI drops its event's answers at once and keeps the other event's", async () => {
  const publicNames = await cached(SEED_QUERY, PUBLIC);
  const before = await cached(COUNT_QUERY, PRIVATE);
  const count = (a: Answer) =>
    (a.body.data as { event: { registrations: { totalCount: number } } }).event.registrations.totalCount;
  const url = t.server.config.databaseUrl;
  const made = await cli(url, ['registration', 'create', '--event', 'private-retreat', '--user', 'pat@example.com']);
  expect(made.code).toBe(0);
  expect(count(await computed(COUNT_QUERY, PRIVATE))).toBe(count(before) + 1);
  await expectReplay(publicNames, SEED_QUERY, PUBLIC);
  const removed = await cli(url, ['registration', 'delete', '--event', 'private-retreat', '--user', 'pat@example.com']);
  expect(removed.code).toBe(0);
  expect(count(await computed(COUNT_QUERY, PRIVATE))).toBe(count(before));
});

test('a registration looked up by id before it existed is shown once it does', async () => {
  const last = Number(
    await t.server
      .db('registrations')
      .max('id as m')
      .first()
      .then((r) => r?.m),
  );
  // The next ids the database may hand out (ids of rows deleted before are not handed out again).
  const ids = Array.from({ length: 50 }, (_, i) => globalId('Registration', last + 1 + i));
  const query = `{ nodes(ids: ${JSON.stringify(ids)}) { id } }`;
  const missing = await cached(query);
  expect(missing.body.data).toEqual({ nodes: ids.map(() => null) });
  // Any event: the answer cannot know which one the next registration goes to.
  const made = await t.server.stores.registrations.create(t.fx.privateEvent.id, t.fx.registrants[2]!.id);
  const found = await computed(query);
  expect((found.body.data as { nodes: ({ id: string } | null)[] }).nodes.filter(Boolean)).toEqual([
    { id: globalId('Registration', made.id) },
  ]);
  await t.server.stores.registrations.delete(t.fx.privateEvent.id, t.fx.registrants[2]!.id);
  expect((await computed(query)).body.data).toEqual({ nodes: ids.map(() => null) });
});

test('a registrant an organizer could not reach is shown once registered for their event', async () => {
  const user = await t.server.stores.users.create({ email: 'walkin@example.com', name: 'Walk In' });
  const query = `{ node(id: "${user.uid}") { ... on Registrant { name } } }`;
  expect((await cached(query)).body.data).toEqual({ node: null });
  const publicNames = await cached(SEED_QUERY, PUBLIC);
  await t.server.stores.registrations.create(t.fx.privateEvent.id, user.id);
  expect((await computed(query)).body.data).toEqual({ node: { name: 'Walk In' } });
  // The public event's answer read neither that event nor that user.
  await expectReplay(publicNames, SEED_QUERY, PUBLIC);
  await t.server.stores.registrations.delete(t.fx.privateEvent.id, user.id);
  expect((await computed(query)).body.data).toEqual({ node: null });
});

test("the change feed's answer moves with every registration, of any event", async () => {
  const query = '{ changes(first: 1000) { nodes { type } pageInfo { endCursor } } }';
  const before = await cached(query);
  const publicName = await cached(NAME_QUERY, PUBLIC);
  await t.server.stores.registrations.create(t.fx.privateEvent.id, t.fx.registrants[3]!.id);
  const after = await computed(query);
  expect(after.text).not.toBe(before.text);
  expect(after.text).toContain('REGISTRATION_CREATED');
  await expectReplay(publicName, NAME_QUERY, PUBLIC);
  await t.server.stores.registrations.delete(t.fx.privateEvent.id, t.fx.registrants[3]!.id);
});

test('more registrations at once than the cache reads (an import) drop every answer, and none is stale', async () => {
  const event = await t.server.stores.events.create({
    slug: 'bulk-day',
    name: 'Bulk Day',
    organizerIds: [t.fx.organizer.id],
  });
  const now = Date.now();
  const users = Array.from({ length: 1001 }, (_, i) => ({
    uid: `u_bulk_${i}`,
    email: `bulk${i}@example.com`,
    email_normalized: `bulk${i}@example.com`,
    email_verified: false,
    name: `Bulk ${i}`,
    activation_state: 'active',
    created_at: now,
    updated_at: now,
  }));
  await t.server.db.batchInsert('users', users, 200);
  const publicNames = await cached(SEED_QUERY, PUBLIC);
  const bulkCount = await cached(COUNT_QUERY, { slug: 'bulk-day' });
  expect(bulkCount.body.data).toEqual({ event: { registrations: { totalCount: 0 } } });
  // One statement: 1,001 changes past the head the cache last read.
  await t.server.db.raw(
    "INSERT INTO registrations (event_id, user_id, created_at) SELECT ?, id, ? FROM users WHERE uid LIKE 'u!_bulk!_%' ESCAPE '!'",
    [event.id, now],
  );
  expect((await computed(COUNT_QUERY, { slug: 'bulk-day' })).body.data).toEqual({
    event: { registrations: { totalCount: 1001 } },
  });
  // Dropped with the rest, though it read neither: computed again, the same answer.
  expect((await computed(SEED_QUERY, PUBLIC)).text).toBe(publicNames.text);
});

test('a registration added past the end of a forward page with more after it keeps that page replayed', async () => {
  const event = await t.server.stores.events.create({
    slug: 'long-day',
    name: 'Long Day',
    organizerIds: [t.fx.organizer.id],
  });
  const users: { id: number }[] = [];
  for (let i = 0; i < 6; i += 1) {
    users.push(await t.server.stores.users.create({ email: `long${i}@example.com`, name: `Long ${i}` }));
  }
  // Ids chosen here, so the test can add one before a page's last row as well as past it (on PostgreSQL a
  // registration committed late can have a lower id than one committed before it).
  const register = (id: number, user: number) =>
    t.server.db('registrations').insert({ id, event_id: event.id, user_id: users[user]!.id, created_at: Date.now() });
  for (const [i, id] of [900001, 900003, 900005, 900007].entries()) await register(id, i);
  const page = (args: string) =>
    `query($slug: String!) { event(slug: $slug) { registrations(${args}) { nodes { registrant { name } } pageInfo { hasNextPage hasPreviousPage } } } }`;
  const slug = { slug: 'long-day' };
  const firstTwo = await cached(page('first: 2'), slug);
  expect(registrantNames(firstTwo)).toEqual(['Long 0', 'Long 1']);
  const firstTen = await cached(page('first: 10'), slug);
  const lastTwo = await cached(page('last: 2'), slug);
  const count = await cached(COUNT_QUERY, slug);

  await register(900009, 4);
  await expectReplay(firstTwo, page('first: 2'), slug);
  expect(registrantNames(await computed(page('first: 10'), slug))).toEqual([...registrantNames(firstTen), 'Long 4']);
  expect(registrantNames(await computed(page('last: 2'), slug))).toEqual(['Long 3', 'Long 4']);
  expect(registrantNames(lastTwo)).toEqual(['Long 2', 'Long 3']);
  expect((await computed(COUNT_QUERY, slug)).body.data).toEqual({ event: { registrations: { totalCount: 5 } } });
  expect(count.body.data).toEqual({ event: { registrations: { totalCount: 4 } } });

  // Before the page's last row: it is in the page now.
  await register(900002, 5);
  const withFive = await computed(page('first: 2'), slug);
  expect(registrantNames(withFive)).toEqual(['Long 0', 'Long 5']);
  await expectReplay(withFive, page('first: 2'), slug);
  // A removal drops every answer that read its event, past the page's end too: the same rows, asked afresh.
  await t.server.db('registrations').where({ id: 900009 }).delete();
  expect((await computed(page('first: 2'), slug)).text).toBe(withFive.text);
  await t.server.db('registrations').where({ id: 900002 }).delete();
  expect(registrantNames(await computed(page('first: 2'), slug))).toEqual(['Long 0', 'Long 1']);
});

test("an answer's reads of one event are kept at their widest, and a page after a cursor ends at its own row", async () => {
  const event = await t.server.stores.events.create({
    slug: 'wide-day',
    name: 'Wide Day',
    organizerIds: [t.fx.organizer.id],
  });
  const users: { id: number }[] = [];
  for (let i = 0; i < 6; i += 1) {
    users.push(await t.server.stores.users.create({ email: `wide${i}@example.com`, name: `Wide ${i}` }));
  }
  const register = (id: number, user: number) =>
    t.server.db('registrations').insert({ id, event_id: event.id, user_id: users[user]!.id, created_at: Date.now() });
  for (const [i, id] of [910001, 910003, 910005, 910007].entries()) await register(id, i);
  const slug = { slug: 'wide-day' };
  const first = await gql(
    t.server,
    t.fx.tokens.organizerUser,
    'query($slug: String!) { event(slug: $slug) { registrations(first: 1) { pageInfo { endCursor } } } }',
    slug,
  );
  const cursor = (first.body.data as { event: { registrations: { pageInfo: { endCursor: string } } } }).event
    .registrations.pageInfo.endCursor;
  const afterCursor =
    'query($slug: String!, $after: String) { event(slug: $slug) { registrations(first: 1, after: $after) { nodes { registrant { name } } pageInfo { hasNextPage endCursor } } } }';
  const vars = { ...slug, after: cursor };
  const second = await cached(afterCursor, vars);
  expect(registrantNames(second)).toEqual(['Wide 1']);
  const counted =
    'query($slug: String!) { event(slug: $slug) { registrations(first: 2) { totalCount nodes { registrant { name } } } } }';
  await cached(counted, slug);
  const twoPages =
    'query($slug: String!) { event(slug: $slug) { a: registrations(first: 10) { nodes { id } } b: registrations(first: 2) { nodes { id } } } }';
  await cached(twoPages, slug);

  // Past every page's end: the cursor page stays; the count and the wider of two pages do not.
  await register(910009, 4);
  await expectReplay(second, afterCursor, vars);
  expect((await computed(counted, slug)).body.data).toMatchObject({ event: { registrations: { totalCount: 5 } } });
  // The wider page read first, the narrower after it: the answer still counts as reading them all.
  const both = (await computed(twoPages, slug)).body.data as { event: { a: { nodes: unknown[] } } };
  expect(both.event.a.nodes).toHaveLength(5);
  // Between the cursor and the page's end: in the page now.
  await register(910002, 5);
  expect(registrantNames(await computed(afterCursor, vars))).toEqual(['Wide 5']);
});

test('while the change log cannot be read, answers are computed afresh and none is kept; replays resume after', async () => {
  const publicNames = await cached(SEED_QUERY, PUBLIC);
  const privateNames = await cached(SEED_QUERY, PRIVATE);
  const pat = t.fx.registrants[1]!;
  await t.server.stores.registrations.create(t.fx.privateEvent.id, pat.id);
  // The log moved past what the cache has read, and the cache cannot read it: a fault of the database's own.
  await t.server.db.raw('ALTER TABLE changes RENAME TO changes_hidden');
  const replayLines = () => logged.filter((line) => line.msg?.startsWith('replay cache:'));
  const before = replayLines().length;
  try {
    // Not replayed (the public answer may be current, but nothing says so), and not kept: computed each time.
    expect((await computed(SEED_QUERY, PUBLIC)).text).toBe(publicNames.text);
    expect((await computed(SEED_QUERY, PUBLIC)).text).toBe(publicNames.text);
    expect(registrantNames(await computed(SEED_QUERY, PRIVATE))).toEqual(['Ann Active', 'Pat Pending']);
    expect(registrantNames(await computed(SEED_QUERY, PRIVATE))).toEqual(['Ann Active', 'Pat Pending']);
    // Asked first now, of what no change touched: kept, it would be replayed after the log is read again.
    await computed(UNTOUCHED_QUERY, PUBLIC);
  } finally {
    await t.server.db.raw('ALTER TABLE changes_hidden RENAME TO changes');
  }
  // Said once for the four answers, with the database's reason, not once a request.
  const unreadable = replayLines().slice(before);
  expect(unreadable).toHaveLength(1);
  expect(unreadable[0]).toMatchObject({ level: 40, msg: expect.stringContaining('cannot be read') });
  expect(unreadable[0]!.err?.message).toMatch(/no such table|does not exist/);
  // The log read again: the public answer it did not touch is replayed, the private one was dropped, and the
  // one first computed while the log could not be read was not kept.
  await expectReplay(publicNames, SEED_QUERY, PUBLIC);
  const untouched = await computed(UNTOUCHED_QUERY, PUBLIC);
  await expectReplay(untouched, UNTOUCHED_QUERY, PUBLIC);
  expect(replayLines().slice(before + 1)).toEqual([
    expect.objectContaining({ level: 30, msg: 'replay cache: the change log is read again; answers are replayed' }),
  ]);
  const added = await computed(SEED_QUERY, PRIVATE);
  expect(added.text).not.toBe(privateNames.text);
  await expectReplay(added, SEED_QUERY, PRIVATE);
  await t.server.stores.registrations.delete(t.fx.privateEvent.id, pat.id);
});
