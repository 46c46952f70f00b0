import { Readable } from 'node:stream';
import { NdjsonImporter } from '../../src/services/import/ndjson-import.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import type { EventRow, UserRow } from '../../src/stores/types.js';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { ndjson } from '../helpers/ndjson.js';

// Every write records, in its own transaction, exactly the changes the change feed lists (docs/api.md), in order, whoever writes
// (the CLI, the stores, the importer). Each test compares what was recorded from the head it started at.

const database = useMigratedDatabase();
let stores: Stores;
beforeAll(() => {
  stores = createStores(database.db);
});

type Recorded = [type: string, eventSlug: string, registrationId: number | null, userId: number | null];

/** The changes `write` recorded, in position order. */
async function recordedBy(write: () => Promise<unknown>): Promise<Recorded[]> {
  const from = await stores.changes.head();
  await write();
  return (await stores.changes.after(from, 10_000)).map((c) => [c.type, c.eventSlug, c.registrationId, c.userId]);
}

const roster = async (...args: string[]) => {
  const res = await cli(database.url, [...args, '--json']);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return res.json;
};

const userId = async (email: string) =>
  Number((await database.db('users').where({ email_normalized: email }).first('id'))!.id);
const registrationId = async (slug: string, user: number) =>
  (await stores.registrations.find((await stores.events.findBySlug(slug))!.id, user))!.id;

describe('the CLI', () => {
  let ann: number;
  let bob: number;

  test('user create records nothing: a user is in no event’s feed until registered', async () => {
    const changes = await recordedBy(async () => {
      for (const n of ['org', 'ann', 'bob']) await roster('user', 'create', '--email', `${n}@log.test`, '--name', n);
    });
    expect(changes).toEqual([]);
    [ann, bob] = [await userId('ann@log.test'), await userId('bob@log.test')];
  });

  test('event create: one event.created each', async () => {
    const changes = await recordedBy(async () => {
      await roster('event', 'create', '--slug', 'log-a', '--name', 'A', '--organizer', 'org@log.test');
      await roster('event', 'create', '--slug', 'log-b', '--name', 'B', '--organizer', 'org@log.test', '--private');
    });
    expect(changes).toEqual([
      ['event.created', 'log-a', null, null],
      ['event.created', 'log-b', null, null],
    ]);
  });

  test('registration create: one registration.created with its registration and registrant', async () => {
    const changes = await recordedBy(async () => {
      await roster('registration', 'create', '--event', 'log-a', '--user', 'ann@log.test');
      await roster('registration', 'create', '--event', 'log-b', '--user', 'ann@log.test');
      await roster('registration', 'create', '--event', 'log-a', '--user', 'bob@log.test');
      await roster('registration', 'create', '--event', 'log-b', '--user', 'bob@log.test');
    });
    expect(changes).toEqual([
      ['registration.created', 'log-a', await registrationId('log-a', ann), ann],
      ['registration.created', 'log-b', await registrationId('log-b', ann), ann],
      ['registration.created', 'log-a', await registrationId('log-a', bob), bob],
      ['registration.created', 'log-b', await registrationId('log-b', bob), bob],
    ]);
  });

  test.each([
    ['name', ['user', 'update', '--name', 'Ann Again']],
    ['email', ['user', 'update', '--email', 'ann.new@log.test']],
    ['email_verified', ['user', 'update', '--email-verified']],
    ['email removed', ['user', 'update', '--no-email']],
    ['activation state (deactivate)', ['user', 'set-state', '--state', 'deactivated']],
    ['activation state (activate)', ['user', 'set-state', '--state', 'active']],
  ])('%s: one registrant.updated per event the registrant is registered for', async (_field, [noun, verb, ...args]) => {
    const uid = String((await database.db('users').where({ id: ann }).first('uid'))!.uid);
    const changes = await recordedBy(() => roster(noun!, verb!, '--user', uid, ...args));
    expect(changes).toEqual([
      ['registrant.updated', 'log-a', null, ann],
      ['registrant.updated', 'log-b', null, ann],
    ]);
  });

  test.each([
    ['the same name', ['user', 'update', '--user', 'bob@log.test', '--name', 'bob']],
    [
      'a picture (not a registrant field)',
      ['user', 'update', '--user', 'bob@log.test', '--picture', 'https://b.test/b.png'],
    ],
    [
      'a time zone (not a registrant field)',
      ['user', 'update', '--user', 'bob@log.test', '--zoneinfo', 'Europe/Paris'],
    ],
    ['the same state', ['user', 'set-state', '--user', 'bob@log.test', '--state', 'active']],
    ['a new password', ['user', 'set-password', '--user', 'bob@log.test', '--password', 'long-enough-pw']],
    ['the same event name', ['event', 'update', '--event', 'log-a', '--name', 'A']],
    ['the same visibility', ['event', 'update', '--event', 'log-b', '--private']],
  ])('an update to %s records nothing', async (_what, args) => {
    expect(await recordedBy(() => roster(...args))).toEqual([]);
  });

  test.each([
    ['name', ['--name', 'A renamed']],
    ['start', ['--starts-at', '2027-03-01T09:00:00Z']],
    ['end', ['--ends-at', '2027-03-01T17:00:00Z']],
    ['time zone', ['--time-zone', 'Europe/Berlin']],
    ['time zone cleared', ['--no-time-zone']],
    ['visibility', ['--private']],
    ['visibility back', ['--public']],
  ])('event update of its %s: one event.updated', async (_field, args) => {
    const changes = await recordedBy(() => roster('event', 'update', '--event', 'log-a', ...args));
    expect(changes).toEqual([['event.updated', 'log-a', null, null]]);
  });

  test('registration delete: one registration.deleted with the removed registration', async () => {
    const id = await registrationId('log-a', ann);
    const uid = String((await database.db('users').where({ id: ann }).first('uid'))!.uid);
    const changes = await recordedBy(() => roster('registration', 'delete', '--event', 'log-a', '--user', uid));
    expect(changes).toEqual([['registration.deleted', 'log-a', id, ann]]);
  });

  test('user delete: one registration.deleted for each of their registrations', async () => {
    const ids = [await registrationId('log-a', bob), await registrationId('log-b', bob)];
    const changes = await recordedBy(() => roster('user', 'delete', '--user', 'bob@log.test'));
    expect(changes).toEqual([
      ['registration.deleted', 'log-a', ids[0], bob],
      ['registration.deleted', 'log-b', ids[1], bob],
    ]);
  });

  test('event delete: one event.deleted with the event as it was, none for its registrations', async () => {
    expect(await database.db('registrations').where({ user_id: ann })).toHaveLength(1); // at log-b
    const from = await stores.changes.head();
    await roster('event', 'delete', '--event', 'log-b');
    const changes = await stores.changes.after(from, 100);
    expect(changes).toEqual([
      expect.objectContaining({
        type: 'event.deleted',
        eventSlug: 'log-b',
        registrationId: null,
        userId: null,
        deleted: { name: 'B', visibility: 'private', organizers: [await userId('org@log.test')] },
      }),
    ]);
  });
});

describe('the stores', () => {
  test('a registrant registered for N events: N registrant.updated, in registration order', async () => {
    const org = await stores.users.create({ name: 'Many Org' });
    const user = await stores.users.create({ name: 'Many', email: 'many@log.test' });
    const events: EventRow[] = [];
    for (const slug of ['many-3', 'many-1', 'many-2']) {
      events.push(await stores.events.create({ slug, name: slug, organizerIds: [org.id] }));
    }
    await stores.registrations.insertMany(events.map((e) => ({ eventId: e.id, userId: user.id })));
    const changes = await recordedBy(() => stores.users.update(user.id, { name: 'Many Renamed' }));
    expect(changes).toEqual(['many-3', 'many-1', 'many-2'].map((slug) => ['registrant.updated', slug, null, user.id]));
  });

  test('one statement inserting many registrations: one registration.created per row, in id order', async () => {
    const org = await stores.users.create({ name: 'Bulk Org' });
    const event = await stores.events.create({ slug: 'bulk', name: 'Bulk', organizerIds: [org.id] });
    const users: UserRow[] = [];
    for (let i = 0; i < 5; i++) users.push(await stores.users.create({ name: `Bulk ${i}` }));
    const changes = await recordedBy(() =>
      stores.registrations.insertMany(users.map((u) => ({ eventId: event.id, userId: u.id }))),
    );
    const ids = (await database.db('registrations').where({ event_id: event.id }).orderBy('id').pluck('user_id')).map(
      Number,
    );
    expect(ids).toEqual(users.map((u) => u.id));
    expect(changes.map(([type, slug, , user]) => [type, slug, user])).toEqual(
      users.map((u) => ['registration.created', 'bulk', u.id]),
    );
    const registrationIds = changes.map((c) => c[2]!);
    expect(registrationIds).toEqual([...registrationIds].sort((a, b) => a - b));
  });

  test('a rolled-back transaction records nothing', async () => {
    const head = await stores.changes.head();
    const org = await stores.users.create({ name: 'Gone Org' });
    await expect(
      stores.transaction(async (s) => {
        const event = await s.events.create({ slug: 'rolled-back', name: 'Rolled Back', organizerIds: [org.id] });
        await s.registrations.create(event.id, org.id);
        await s.users.update(org.id, { name: 'Renamed In Vain' });
        await s.events.update(event.id, { slug: 'rolled-back', name: 'Renamed Too' });
        expect((await s.changes.after(head, 100)).map((c) => c.type)).toEqual([
          'event.created',
          'registration.created',
          'registrant.updated',
          'event.updated',
        ]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await stores.changes.after(head, 100)).toEqual([]);
    expect(await stores.changes.head()).toBe(head);
  });
});

describe('the importer', () => {
  const importer = () => new NdjsonImporter(stores);
  const FILE = ndjson(
    { type: 'user', email: 'imp-org@log.test', name: 'Imp Org' },
    { type: 'user', uid: 'u_imp_reg', name: 'Imp Reg' },
    { type: 'event', slug: 'imp-1', name: 'Imp 1', organizers: ['imp-org@log.test'] },
    { type: 'event', slug: 'imp-2', name: 'Imp 2', organizers: ['imp-org@log.test'], visibility: 'private' },
    { type: 'registration', event: 'imp-1', user: 'u_imp_reg' },
    { type: 'registration', event: 'imp-2', user: 'u_imp_reg' },
    { type: 'registration', event: 'imp-2', user: 'imp-org@log.test' },
  );

  test('an import records its creations', async () => {
    const changes = await recordedBy(() => importer().run(Readable.from([FILE])));
    const reg = await database.db('users').where({ uid: 'u_imp_reg' }).first('id');
    const org = await userId('imp-org@log.test');
    expect(changes.map(([type, slug, , user]) => [type, slug, user])).toEqual([
      ['event.created', 'imp-1', null],
      ['event.created', 'imp-2', null],
      ['registration.created', 'imp-1', Number(reg.id)],
      ['registration.created', 'imp-2', Number(reg.id)],
      ['registration.created', 'imp-2', org],
    ]);
  });

  test('a second import of the same file records nothing; a dry run records nothing', async () => {
    expect(await recordedBy(() => importer().run(Readable.from([FILE])))).toEqual([]);
    const changed = FILE.replace('"Imp Reg"', '"Imp Reg Renamed"').replace('"Imp 1"', '"Imp One"');
    expect(await recordedBy(() => importer().dryRun(Readable.from([changed])))).toEqual([]);
  });

  test('an import that changes a registrant and an event records just those', async () => {
    const changed = FILE.replace('"Imp Reg"', '"Imp Reg Renamed"').replace('"Imp 1"', '"Imp One"');
    const reg = Number((await database.db('users').where({ uid: 'u_imp_reg' }).first('id')).id);
    expect(await recordedBy(() => importer().run(Readable.from([changed])))).toEqual([
      ['registrant.updated', 'imp-1', null, reg],
      ['registrant.updated', 'imp-2', null, reg],
      ['event.updated', 'imp-1', null, null],
    ]);
  });
});

describe('prune', () => {
  const DAY = 86_400_000;

  test('drops the changes that occurred before the cutoff, as one prefix, and moves prunedThrough', async () => {
    const all = await stores.changes.after(0, 10_000);
    expect(all.length).toBeGreaterThan(10);
    const kept = all.slice(6);
    const lastOld = all[5]!.position;
    // The third is recent (another instance's clock): within the prefix, it goes too, leaving no hole.
    const old = all.slice(0, 6).filter((_c, i) => i !== 2);
    await database
      .db('changes')
      .whereIn(
        'position',
        old.map((c) => c.position),
      )
      .update({ occurred_at: Date.now() - 40 * DAY });
    const head = await stores.changes.head();
    const epoch = (await database.db('data_epoch').first('value'))!.value;

    expect(await stores.changes.prune(Date.now() - 30 * DAY)).toBe(6);
    expect(await stores.changes.prunedThrough()).toBe(lastOld);
    expect((await stores.changes.after(0, 10_000)).map((c) => c.position)).toEqual(kept.map((c) => c.position));
    expect(await stores.changes.head()).toBe(head);
    // Cached answers (a feed page among them) are computed again.
    expect(Number((await database.db('data_epoch').first('value'))!.value)).toBeGreaterThan(Number(epoch));
  });

  test('nothing old enough: nothing dropped, prunedThrough stays', async () => {
    const through = await stores.changes.prunedThrough();
    expect(await stores.changes.prune(Date.now() - 30 * DAY)).toBe(0);
    expect(await stores.changes.prunedThrough()).toBe(through);
  });

  test('everything pruned: the head stays where the log was', async () => {
    const head = await stores.changes.head();
    await stores.changes.prune(Date.now() + DAY);
    expect(await stores.changes.after(0, 10)).toEqual([]);
    expect(await stores.changes.prunedThrough()).toBe(head);
    expect(await stores.changes.head()).toBe(head);
    // A new change goes after it.
    const org = await stores.users.create({ name: 'After Prune' });
    await stores.events.create({ slug: 'after-prune', name: 'After Prune', organizerIds: [org.id] });
    const [next] = await stores.changes.after(head, 10);
    expect(next).toMatchObject({ type: 'event.created', eventSlug: 'after-prune' });
    expect(next!.position).toBeGreaterThan(head);
  });
});

describe('a change leaves the log only by pruning', () => {
  const REFUSED = /DELETE FROM changes is refused for changes not yet pruned/;
  const DAY = 86_400_000;

  test('a hand DELETE of changes not yet pruned is refused, whichever it names, and every change stays', async () => {
    const org = await stores.users.create({ name: 'Hand Delete' });
    await stores.events.create({ slug: 'hand-delete', name: 'Hand Delete', organizerIds: [org.id] });
    const kept = await stores.changes.after(0, 10_000);
    expect(kept.length).toBeGreaterThan(0);
    await expect(database.db.raw('DELETE FROM changes WHERE position = ?', [kept.at(-1)!.position])).rejects.toThrow(
      REFUSED,
    );
    await expect(database.db.raw('DELETE FROM changes')).rejects.toThrow(REFUSED);
    // Retention written by hand: what the hint's CHANGES_RETENTION_DAYS does, and tells feed readers of.
    const handRetention = database
      .db('changes')
      .where('occurred_at', '<', Date.now() + DAY)
      .delete();
    const err = await handRetention.then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string; hint?: string },
    );
    expect(err?.message).toMatch(REFUSED);
    if (database.url.startsWith('postgres')) {
      expect(err).toMatchObject({ code: '0A000', hint: expect.stringContaining('CHANGES_RETENTION_DAYS') });
    }
    expect(await stores.changes.after(0, 10_000)).toEqual(kept);
  });

  test('prunedThrough cannot be lowered by hand; pruning still moves it and drops what is before', async () => {
    const org = await stores.users.create({ name: 'Pruned Before' });
    await stores.events.create({ slug: 'pruned-before', name: 'Pruned Before', organizerIds: [org.id] });
    expect(await stores.changes.prune(Date.now() + DAY)).toBeGreaterThan(0);
    const through = await stores.changes.prunedThrough();
    expect(through).toBeGreaterThan(0);
    await expect(
      database
        .db('change_log_state')
        .where({ id: 1 })
        .update({ pruned_through: through - 1 }),
    ).rejects.toThrow('change_log_state keeps its id, and its counters only grow');
    // Renumbered, the row would be missing to every reader, and to the delete guard.
    await expect(database.db('change_log_state').where({ id: 1 }).update({ id: 2 })).rejects.toThrow(
      'counters only grow',
    );
    expect(await stores.changes.prunedThrough()).toBe(through);
    await stores.events.create({ slug: 'pruned-after', name: 'Pruned After', organizerIds: [org.id] });
    const head = await stores.changes.head();
    expect(await stores.changes.prune(Date.now() + DAY)).toBeGreaterThan(0);
    expect(await stores.changes.after(0, 10)).toEqual([]);
    expect(await stores.changes.prunedThrough()).toBe(head);
  });

  test('pruning by hand, where the log starts moved first, moves the data epoch as pruning does', async () => {
    const org = await stores.users.create({ name: 'Hand Prune' });
    await stores.events.create({ slug: 'hand-prune', name: 'Hand Prune', organizerIds: [org.id] });
    const head = await stores.changes.head();
    const before = await stores.epochs.current();
    await database.db.transaction(async (trx) => {
      await trx('change_log_state').where({ id: 1 }).update({ pruned_through: head });
      await trx('changes').where('position', '<=', head).delete();
    });
    expect(await stores.changes.after(0, 10)).toEqual([]);
    // Answers replayed from before are computed again: an instance may not have read what was deleted.
    expect(Number((await stores.epochs.current()).data)).toBeGreaterThan(Number(before.data));
  });
});
