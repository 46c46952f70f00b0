import { useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { heldUpRequest as heldUp } from '../helpers/held-up.js';
import { useOtherConnection } from '../helpers/other-connection.js';
import { sqlDuring } from '../helpers/sql.js';

// A computed answer reuses the events another request read at the same data epoch (stores/rows-at-epoch.ts).
// Replays are off here, so every answer below is computed: a write committed elsewhere (another instance, the
// CLI) must show in the very next answer, and what an organizer may see must follow their removal at once.
const t = useSeededServer({ RESPONSE_CACHE_MB: '0' });

/** Writes through another connection, as another instance or the CLI makes them. */
const other = useOtherConnection(t);

const NAME = 'query($slug: String!) { event(slug: $slug) { name visibility } }';
const REGISTRANTS = 'query($slug: String!) { event(slug: $slug) { name registrations { totalCount } } }';

/** The statements a request runs that read events (with their organizers). */
async function eventReads(fn: () => Promise<unknown>): Promise<string[]> {
  const { sql } = await sqlDuring(t.server.db, fn);
  return sql.filter((s) => /\bfrom\s+[`"]?events\b/i.test(s));
}

test('the same event at the same data epoch is read once, whoever asks', async () => {
  const slug = { slug: 'public-meetup' };
  const first = await gql(t.server, t.fx.tokens.organizerUser, NAME, slug);
  expect(first.body.data).toEqual({ event: { name: 'Public Meetup', visibility: 'PUBLIC' } });
  let again!: Awaited<ReturnType<typeof gql>>;
  expect(await eventReads(async () => (again = await gql(t.server, t.fx.tokens.otherApp, NAME, slug)))).toEqual([]);
  expect(again.body.data).toEqual(first.body.data);
});

test('an event renamed elsewhere is read afresh by the next answer', async () => {
  const slug = { slug: 'public-meetup' };
  expect((await gql(t.server, t.fx.tokens.organizerUser, NAME, slug)).body.data).toMatchObject({
    event: { name: 'Public Meetup' },
  });
  await other.stores.events.update(t.fx.publicEvent.id, { slug: 'public-meetup', name: 'Renamed Meetup' });
  for (const token of [t.fx.tokens.organizerUser, t.fx.tokens.otherUser]) {
    expect((await gql(t.server, token, NAME, slug)).body.data).toMatchObject({ event: { name: 'Renamed Meetup' } });
  }
  await other.stores.events.update(t.fx.publicEvent.id, { slug: 'public-meetup', name: 'Public Meetup' });
  expect((await gql(t.server, t.fx.tokens.otherUser, NAME, slug)).body.data).toMatchObject({
    event: { name: 'Public Meetup' },
  });
});

test('an organizer removed elsewhere loses a private event and its registrants at once, and gets them back', async () => {
  const slug = { slug: 'private-retreat' };
  const token = t.fx.tokens.organizerUser;
  const seen = await gql(t.server, token, REGISTRANTS, slug);
  expect(seen.body.data).toEqual({ event: { name: 'Private Retreat', registrations: { totalCount: 1 } } });
  // Another organizer keeps the event; ours is removed by a write this server took no part in.
  const stand = await other.stores.users.create({ email: 'stand-in@example.com', name: 'Stand In' });
  await other.stores.events.setOrganizers(t.fx.privateEvent.id, [stand.id]);
  const removed = await gql(t.server, token, REGISTRANTS, slug);
  expect(removed.status).toBe(200);
  expect(removed.body.data).toEqual({ event: null });
  await other.stores.events.setOrganizers(t.fx.privateEvent.id, [t.fx.organizer.id]);
  expect((await gql(t.server, token, REGISTRANTS, slug)).body.data).toEqual(seen.body.data);
});

test('a private event made public elsewhere shows to everyone at once, and hides again', async () => {
  const slug = { slug: 'private-retreat' };
  const stranger = t.fx.tokens.otherUser;
  expect((await gql(t.server, stranger, NAME, slug)).body.data).toEqual({ event: null });
  await other.stores.events.update(t.fx.privateEvent.id, { slug: 'private-retreat', visibility: 'public' });
  expect((await gql(t.server, stranger, NAME, slug)).body.data).toEqual({
    event: { name: 'Private Retreat', visibility: 'PUBLIC' },
  });
  await other.stores.events.update(t.fx.privateEvent.id, { slug: 'private-retreat', visibility: 'private' });
  expect((await gql(t.server, stranger, NAME, slug)).body.data).toEqual({ event: null });
});

test('an event deleted elsewhere is gone from the next answer', async () => {
  const made = await other.stores.events.create({
    slug: 'soon-gone',
    name: 'Soon Gone',
    organizerIds: [t.fx.organizer.id],
  });
  const slug = { slug: 'soon-gone' };
  expect((await gql(t.server, t.fx.tokens.otherUser, NAME, slug)).body.data).toMatchObject({
    event: { name: 'Soon Gone' },
  });
  expect(await other.stores.events.delete(made.id)).toBe(true);
  expect((await gql(t.server, t.fx.tokens.otherUser, NAME, slug)).body.data).toEqual({ event: null });
});

test('an event hidden from the viewer is read again, as a missing one is: no telling the two apart', async () => {
  // The organizer's read keeps the private event at this epoch.
  expect((await gql(t.server, t.fx.tokens.organizerUser, NAME, { slug: 'private-retreat' })).body.data).toMatchObject({
    event: { name: 'Private Retreat' },
  });
  for (const slug of ['private-retreat', 'no-such-event']) {
    let answer!: Awaited<ReturnType<typeof gql>>;
    const reads = await eventReads(async () => (answer = await gql(t.server, t.fx.tokens.otherUser, NAME, { slug })));
    expect(answer.body.data).toEqual({ event: null });
    expect(reads).toHaveLength(1);
  }
});

/** Keeps `slug`'s event (the organizer reads it), then holds up a request for it past the reuse window. */
async function heldUpRequest(slug: string) {
  expect((await gql(t.server, t.fx.tokens.organizerUser, NAME, { slug })).body.data).toMatchObject({
    event: { name: 'Private Retreat' },
  });
  return heldUp(t.server, other.stores, t.fx.organizer.id, NAME, { slug });
}

test('a request held up past the reuse window is not served the event kept before it: a removal meanwhile is seen', async () => {
  const slug = 'private-retreat';
  const held = await heldUpRequest(slug);
  try {
    // The organizer is removed (the epoch moves) after the request read its epochs, before its body is in.
    const stand = await other.stores.users.create({ email: 'late-stand-in@example.com', name: 'Late Stand In' });
    await other.stores.events.setOrganizers(t.fx.privateEvent.id, [stand.id]);
    const { status, text } = await held.finish();
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ data: { event: null } });
  } finally {
    held.abandon();
    await other.stores.events.setOrganizers(t.fx.privateEvent.id, [t.fx.organizer.id]);
  }
});

test('a request held up past the reuse window, with nothing written meanwhile, still reuses the event', async () => {
  const slug = 'private-retreat';
  const held = await heldUpRequest(slug);
  try {
    let answer!: { status: number; text: string };
    expect(await eventReads(async () => (answer = await held.finish()))).toEqual([]);
    expect(JSON.parse(answer.text)).toEqual({ data: { event: { name: 'Private Retreat', visibility: 'PRIVATE' } } });
  } finally {
    held.abandon();
  }
});
