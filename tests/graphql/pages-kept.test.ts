import { useSeededServer } from '../helpers/fixtures.js';
import { gql, type GraphQLResult } from '../helpers/graphql.js';
import { heldUpRequest } from '../helpers/held-up.js';
import { useOtherConnection } from '../helpers/other-connection.js';
import { forgetCachedAnswers, sqlDuring } from '../helpers/sql.js';

// A computed answer's page of registrations is served from the event's first registrations another request
// read at the same data epoch and change-log head (stores/starts-at-epoch.ts). Replays are off, so every
// answer here is computed: a write committed elsewhere (another instance, the CLI) must show in the next one.
const t = useSeededServer({ RESPONSE_CACHE_MB: '0' });

/** Writes through another connection, as another instance or the CLI makes them. */
const other = useOtherConnection(t);

const PAGE = `query($slug: String!, $first: Int, $after: String, $last: Int, $before: String) {
  event(slug: $slug) {
    registrations(first: $first, after: $after, last: $last, before: $before) {
      nodes { createdAt registrant { name email activationState } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;
const slug = 'public-meetup';

interface Connection {
  nodes: { createdAt: string; registrant: { name: string; email: string | null } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}
const connection = (answer: GraphQLResult): Connection => {
  expect(answer.body.errors).toBeUndefined();
  return (answer.body.data as { event: { registrations: Connection } }).event.registrations;
};
const names = (c: Connection) => c.nodes.map((n) => n.registrant.name);

/** The statements of `sql` that read registrations. */
const registrationReads = (sql: string[]) => sql.filter((s) => /\bfrom\s+[`"]?registrations\b/i.test(s));

/** The answer to `args`, and the statements it ran that read registrations. */
async function page(args: Record<string, unknown>, token = t.fx.tokens.organizerApp) {
  let answer!: GraphQLResult;
  const { sql } = await sqlDuring(t.server.db, async () => {
    answer = await gql(t.server, token, PAGE, { slug, ...args });
  });
  return { answer, reads: registrationReads(sql) };
}

/** Moves the data epoch, as any write elsewhere does, changing no answer. */
const moveEpoch = () => forgetCachedAnswers(other.db);

test('an event read from its start serves any page within it at the same epochs, whoever asks, no statement', async () => {
  // Five registrants: a start of 6 asked, 5 came, so the whole list is kept.
  const whole = await page({ first: 5 }, t.fx.tokens.organizerUser);
  expect(whole.reads).toHaveLength(1);
  const all = names(connection(whole.answer));
  expect(all).toHaveLength(5);
  // The organizer's app token is served the start the organizer's user token read, without the emails.
  const emails = (c: Connection) => c.nodes.map((n) => n.registrant.email);
  expect(emails(connection(whole.answer)).filter(Boolean)).not.toEqual([]);
  const byApp = await page({ first: 5 });
  expect(byApp.reads).toEqual([]);
  expect(names(connection(byApp.answer))).toEqual(all);
  expect(emails(connection(byApp.answer))).toEqual(all.map(() => null));
  const cursors = [connection(whole.answer).pageInfo.startCursor];
  const second = connection((await page({ first: 2 })).answer).pageInfo.endCursor!;
  const windows: Record<string, unknown>[] = [
    { first: 2 },
    { first: 0 },
    { first: 2, after: second },
    { first: 10, after: second },
    { last: 2 },
    { last: 2, before: second },
    { last: 10, before: second },
    { first: 1, after: cursors[0], before: second },
    { first: 3, after: second, before: cursors[0] },
  ];
  for (const args of windows) {
    // The whole list, kept at this epoch (read by its statement after the last move).
    expect(names(connection((await page({ first: 5 })).answer))).toEqual(all);
    const kept = await page(args);
    expect({ args, reads: kept.reads }).toEqual({ args, reads: [] });
    // The same window read by its statement, once the epoch has moved, is the same answer.
    await moveEpoch();
    const read = await page(args);
    expect(read.reads).toHaveLength(1);
    expect({ args, answer: kept.answer.body }).toEqual({ args, answer: read.answer.body });
  }
  expect(names(connection((await page({ first: 2, after: second })).answer))).toEqual(all.slice(2, 4));
});

test('a page past the kept start is read by its statement; one within it is not', async () => {
  await moveEpoch();
  // A start of 3 asked (2 and one more): not the whole list.
  const start = connection((await page({ first: 2 })).answer);
  expect(start.pageInfo.hasNextPage).toBe(true);
  const past = await page({ first: 2, after: start.pageInfo.endCursor });
  expect(past.reads).toHaveLength(1);
  expect(connection(past.answer).pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  const within = await page({ first: 1, after: start.pageInfo.startCursor });
  expect(within.reads).toEqual([]);
  expect(names(connection(within.answer))).toEqual([names(start)[1]]);
  // Backward from the end needs the whole list, which is not kept.
  expect((await page({ last: 1 })).reads).toHaveLength(1);
});

/** The data epoch and the change log's head, as every request reads them. */
const counters = () => other.db('data_epoch').where({ id: 1 }).first('value', 'changes_head');

test('a registration added or removed elsewhere moves only the change log, and shows in the next answer', async () => {
  const newcomer = await other.stores.users.create({ email: 'late-comer@example.com', name: 'Late Comer' });
  const before = names(connection((await page({ first: 10 })).answer));
  const was = await counters();
  const made = await other.stores.registrations.create(t.fx.publicEvent.id, newcomer.id);
  try {
    const now = await counters();
    expect(String(now.value)).toBe(String(was.value));
    expect(String(now.changes_head)).not.toBe(String(was.changes_head));
    for (const token of [t.fx.tokens.organizerUser, t.fx.tokens.organizerApp]) {
      expect(names(connection((await page({ first: 10 }, token)).answer))).toEqual([...before, 'Late Comer']);
    }
  } finally {
    expect(await other.stores.registrations.delete(made.eventId, newcomer.id)).toBe(true);
  }
  expect(names(connection((await page({ first: 10 })).answer))).toEqual(before);
});

test('a registrant deleted, or a registration changed, elsewhere shows in the next answer', async () => {
  const leaving = await other.stores.users.create({ email: 'leaving-soon@example.com', name: 'Leaving Soon' });
  const made = await other.stores.registrations.create(t.fx.publicEvent.id, leaving.id);
  const first = connection((await page({ first: 10 })).answer);
  expect(names(first)).toContain('Leaving Soon');
  // A registration's own columns changed by hand: an update moves the data epoch.
  await other
    .db('registrations')
    .where({ id: made.id })
    .update({ created_at: Date.UTC(2020, 0, 1) });
  const changed = connection((await page({ first: 10 })).answer);
  expect(changed.nodes.at(-1)).toMatchObject({ createdAt: '2020-01-01T00:00:00.000Z' });
  expect(await other.stores.users.delete(leaving.id)).toBe(true);
  expect(names(connection((await page({ first: 10 })).answer))).toEqual(names(first).slice(0, -1));
});

test('a registrant renamed or deactivated elsewhere shows in the next answer', async () => {
  const registrant = t.fx.registrants[0]!;
  const answer = async () => connection((await page({ first: 10 })).answer).nodes[0]!.registrant;
  expect(await answer()).toMatchObject({ name: registrant.name, activationState: 'active' });
  await other.stores.users.update(registrant.id, { name: 'Renamed Registrant' });
  expect(await answer()).toMatchObject({ name: 'Renamed Registrant' });
  await other.stores.users.setActivationState(registrant.id, 'deactivated');
  expect(await answer()).toMatchObject({ name: 'Renamed Registrant', activationState: 'deactivated' });
  await other.stores.users.setActivationState(registrant.id, 'active');
  await other.stores.users.update(registrant.id, { name: registrant.name });
  expect(await answer()).toMatchObject({ name: registrant.name, activationState: 'active' });
});

test('a viewer who may not read the registrations is refused, however recently they were read', async () => {
  expect((await page({ first: 10 }, t.fx.tokens.organizerUser)).answer.status).toBe(200);
  for (const token of [t.fx.tokens.otherUser, t.fx.tokens.otherApp]) {
    const { answer, reads } = await page({ first: 10 }, token);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(answer.body.data).toEqual({ event: { registrations: null } });
    expect(reads).toEqual([]);
  }
});

test('a request held up past the reuse window, with nothing written meanwhile, still reuses the kept start', async () => {
  const before = names(connection((await page({ first: 10 })).answer));
  const held = await heldUpRequest(t.server, other.stores, t.fx.organizer.id, PAGE, { slug, first: 10 });
  try {
    let text = '';
    const { sql } = await sqlDuring(t.server.db, async () => ({ text } = await held.finish()));
    expect(registrationReads(sql)).toEqual([]);
    const answer = JSON.parse(text) as GraphQLResult['body'];
    expect(names((answer.data as { event: { registrations: Connection } }).event.registrations)).toEqual(before);
  } finally {
    held.abandon();
  }
});

test('a request held up past the reuse window is not served the start kept before it: a registration added meanwhile shows', async () => {
  const before = names(connection((await page({ first: 10 })).answer));
  const held = await heldUpRequest(t.server, other.stores, t.fx.organizer.id, PAGE, { slug, first: 10 });
  const newcomer = await other.stores.users.create({ email: 'held-up-comer@example.com', name: 'Held Up Comer' });
  const made = await other.stores.registrations.create(t.fx.publicEvent.id, newcomer.id);
  try {
    const { status, text } = await held.finish();
    expect(status).toBe(200);
    const answer = JSON.parse(text) as GraphQLResult['body'];
    expect(names((answer.data as { event: { registrations: Connection } }).event.registrations)).toEqual([
      ...before,
      'Held Up Comer',
    ]);
  } finally {
    held.abandon();
    await other.stores.registrations.delete(made.eventId, newcomer.id);
  }
});

test('the rows a kept start hands out are frozen: one request cannot change what the next is given', async () => {
  const { registrations, epochs } = t.server.stores;
  const { data, changes } = await epochs.current();
  const at = { epoch: data, changes, readAt: performance.now() };
  const start = { afterId: null, beforeId: null, backward: false };
  const read = await registrations.window(t.fx.publicEvent.id, 5, start, at);
  const kept = await registrations.window(t.fx.publicEvent.id, 2, start, at);
  // The same objects: the second was served from the start the first read.
  expect(kept.rows[0]).toBe(read.rows[0]);
  const row = kept.rows[0]!;
  expect(Object.isFrozen(row) && Object.isFrozen(row.registrant)).toBe(true);
  expect(() => Object.assign(row.registrant, { name: 'Someone Else' })).toThrow(TypeError);
});
