import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';

// The live reader with the real database: followers from the head and from far behind what memory keeps
// both get every position once, in order, while a bulk write of more changes than memory holds commits.
const t = useSeededServer();

/** Follows from `after`; `upTo(last)` waits until it has read through `last`: every position, and the batches' ends. */
function collect(after: number, filter = {}) {
  const controller = new AbortController();
  const positions: number[] = [];
  const ends: number[] = [];
  const done = (async () => {
    for await (const batch of t.server.services.live.follow(after, filter, controller.signal)) {
      positions.push(...batch.rows.map((r) => r.position));
      ends.push(batch.through);
    }
  })();
  return {
    async upTo(last: number) {
      await until(() => (ends.at(-1) ?? after) >= last, `the follower from ${after} reached ${last}`, 60_000);
      controller.abort();
      await done;
      return { positions, ends };
    },
  };
}

test('followers from the head and from the start see every change once, in order, past what memory keeps', async () => {
  const { live } = t.server.services;
  const start = await live.startAfter(null);
  // Holds the reader (and what it keeps in memory) until the end of the test.
  const keeper = new AbortController();
  const kept = live.follow(start, {}, keeper.signal);
  void kept.next();
  const fromHead = collect(start);
  const fromStart = collect(0);
  // More changes than the reader keeps in memory (10,000), in several transactions.
  await addRegistrants(t.server, t.fx.publicEvent.id, 12_500, { prefix: 'bulk', name: 'Bulk' });
  const last = await t.server.stores.changes.head();
  const [a, b] = await Promise.all([fromHead.upTo(last), fromStart.upTo(last)]);
  const expected = (from: number) => Array.from({ length: last - from }, (_, i) => from + i + 1);
  expect(a.positions).toEqual(expected(start));
  expect(b.positions).toEqual(expected(0));
  // One that starts now, while the reader still runs, from inside the range memory already let go of.
  const late = await collect(start + 100).upTo(last);
  keeper.abort();
  await kept.return(undefined);
  expect(late.positions).toEqual(expected(start + 100));
  // Batch ends only move forward, and never past the log's head.
  for (const ends of [a.ends, b.ends]) {
    expect(ends).toEqual([...ends].sort((x, y) => x - y));
    expect(Math.max(...ends)).toBe(last);
  }
}, 90_000);

test('a filter keeps only its changes; a cursor before the kept log or past the head is refused', async () => {
  const { live, changes } = t.server.services;
  const head = await live.startAfter(null);
  const followed = collect(head, { types: ['event.updated'] });
  await t.server.stores.registrations.create(t.fx.privateEvent.id, t.fx.other.id);
  await t.server.services.events.update('public-meetup', { name: 'Public Meetup, renamed' });
  const last = await t.server.stores.changes.head();
  const { positions } = await followed.upTo(last);
  const rows = await t.server.stores.changes.between(head, last);
  expect(rows.map((r) => r.type)).toEqual(['registration.created', 'event.updated']);
  expect(positions).toEqual([rows[1]!.position]);
  await expect(live.startAfter(last + 1)).rejects.toThrow('no change log position this high');
  await changes.prune(Date.now() + (t.server.config.changesRetentionDays + 1) * 86_400_000);
  await expect(live.startAfter(head)).rejects.toThrow('older than the changes kept');
  expect(await live.startAfter(null)).toBe(last);
}, 30_000);

test('a first follower whose changes committed before it attached finds them in memory, not in the log', async () => {
  const { live } = t.server.services;
  // Where a stream opened now starts; two changes commit before it begins to follow (no follower yet).
  const start = await live.startAfter(null);
  await t.server.stores.registrations.create(t.fx.privateEvent.id, t.fx.organizer.id);
  await t.server.stores.registrations.create(t.fx.publicEvent.id, t.fx.organizer.id);
  const last = await t.server.stores.changes.head();
  expect(last).toBe(start + 2);
  const controller = new AbortController();
  const batches: { positions: number[]; fromLog: boolean }[] = [];
  for await (const batch of live.follow(start, {}, controller.signal)) {
    batches.push({ positions: batch.rows.map((r) => r.position), fromLog: batch.fromLog });
    if (batch.through >= last) controller.abort();
  }
  // A log read is priced as a page of Query.changes: a stream that just opened must not pay for one.
  expect(batches.flatMap((b) => b.positions)).toEqual([start + 1, start + 2]);
  expect(batches.filter((b) => b.fromLog)).toEqual([]);
}, 30_000);
