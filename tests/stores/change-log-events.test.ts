import { Readable } from 'node:stream';
import { NdjsonImporter } from '../../src/services/import/ndjson-import.js';
import { WATCHED_EVENT_COLUMNS } from '../../src/stores/migrations/20261126010000_change_log.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { ndjson } from '../helpers/ndjson.js';

// An event's organizers and every column an answer shows reach the change log: organizers through the
// event's row, columns through the trigger's list, which must name every column of `events`.
const database = useMigratedDatabase();
let stores: Stores;
beforeAll(async () => {
  stores = createStores(database.db);
  for (const n of ['org', 'co', 'ann']) await roster('user', 'create', '--email', `${n}@ev.test`, '--name', n);
});

async function recordedBy(write: () => Promise<unknown>): Promise<[string, string][]> {
  const from = await stores.changes.head();
  await write();
  return (await stores.changes.after(from, 10_000)).map((c) => [c.type, c.eventSlug]);
}

async function roster(...args: string[]) {
  const res = await cli(database.url, [...args, '--json']);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return res.json;
}

test('every column of events but its bookkeeping is watched by the change trigger', async () => {
  const columns = Object.keys(await database.db('events').columnInfo());
  const bookkeeping = ['id', 'created_at', 'updated_at', 'organizers_version'];
  expect(columns.filter((c) => !bookkeeping.includes(c)).sort()).toEqual([...WATCHED_EVENT_COLUMNS].sort());
});

test('creating an event with organizers is one event.created, however many organizers', async () => {
  const changes = await recordedBy(() =>
    roster(
      'event',
      'create',
      '--slug',
      'ev-a',
      '--name',
      'A',
      '--organizer',
      'org@ev.test',
      '--organizer',
      'co@ev.test',
    ),
  );
  expect(changes).toEqual([['event.created', 'ev-a']]);
});

test('adding or removing an organizer is an event.updated; the same organizers again is nothing', async () => {
  expect(
    await recordedBy(() => roster('event', 'update', '--event', 'ev-a', '--remove-organizer', 'co@ev.test')),
  ).toEqual([['event.updated', 'ev-a']]);
  expect(
    await recordedBy(() => roster('event', 'update', '--event', 'ev-a', '--add-organizer', 'ann@ev.test')),
  ).toEqual([['event.updated', 'ev-a']]);
  const id = (await stores.events.findBySlug('ev-a'))!.id;
  const same = (await stores.events.organizerIds([id])).get(id)!;
  expect(await recordedBy(() => stores.events.setOrganizers(id, [...same].reverse()))).toEqual([]);
});

test('a location set, changed or cleared is an event.updated', async () => {
  expect(await recordedBy(() => roster('event', 'update', '--event', 'ev-a', '--location', 'Hall B'))).toEqual([
    ['event.updated', 'ev-a'],
  ]);
  expect(await recordedBy(() => roster('event', 'update', '--event', 'ev-a', '--location', 'Hall B'))).toEqual([]);
  expect(await recordedBy(() => roster('event', 'update', '--event', 'ev-a', '--no-location'))).toEqual([
    ['event.updated', 'ev-a'],
  ]);
});

test('an import that changes only organizers records one event.updated; a new event only its creation', async () => {
  const importer = new NdjsonImporter(stores);
  const run = (lines: object[]) => importer.run(Readable.from([ndjson(...lines)]));
  const event = (slug: string, organizers: string[]) => ({ type: 'event', slug, name: slug, organizers });
  expect(await recordedBy(() => run([event('ev-b', ['org@ev.test'])]))).toEqual([['event.created', 'ev-b']]);
  expect(await recordedBy(() => run([event('ev-b', ['org@ev.test'])]))).toEqual([]);
  expect(await recordedBy(() => run([event('ev-b', ['org@ev.test', 'co@ev.test'])]))).toEqual([
    ['event.updated', 'ev-b'],
  ]);
});

test('deleting a co-organizer’s account is an event.updated of each event they organized', async () => {
  await roster('user', 'create', '--email', 'gone@ev.test', '--name', 'gone');
  await roster('event', 'update', '--event', 'ev-a', '--add-organizer', 'gone@ev.test');
  expect(await recordedBy(() => roster('user', 'delete', '--user', 'gone@ev.test'))).toEqual([
    ['event.updated', 'ev-a'],
  ]);
});
