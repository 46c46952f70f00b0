import { createStores, type Stores } from '../../src/stores/stores.js';
import { useMigratedDatabase } from '../helpers/harness.js';

// The API reads an event and its organizers in one statement: the same event, and the same organizers as
// their own read gives, on either database.
const database = useMigratedDatabase();
let stores: Stores;
const ids: Record<string, number> = {};

beforeAll(async () => {
  stores = createStores(database.db);
  for (const n of ['ann', 'bob', 'cy']) ids[n] = (await stores.users.create({ name: n, email: `${n}@eo.test` })).id;
  const event = (slug: string, organizerIds: number[]) => stores.events.create({ slug, name: slug, organizerIds });
  ids.three = (await event('eo-three', [ids.cy!, ids.ann!, ids.bob!])).id;
  ids.one = (await event('eo-one', [ids.bob!])).id;
  ids.none = (await event('eo-none', [])).id;
});

const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

test('by slug: each event with all its organizers, none for an event without', async () => {
  const rows = await stores.events.findBySlugsWithOrganizers(['eo-three', 'eo-one', 'eo-none', 'eo-missing']);
  expect(rows.map((r) => r.slug).sort()).toEqual(['eo-none', 'eo-one', 'eo-three']);
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  expect(sorted(bySlug.get('eo-three')!.organizerIds)).toEqual(sorted([ids.ann!, ids.bob!, ids.cy!]));
  expect(bySlug.get('eo-one')!.organizerIds).toEqual([ids.bob]);
  expect(bySlug.get('eo-none')!.organizerIds).toEqual([]);
});

test('the event is the one findBySlugs reads, and the organizers those organizerIds reads', async () => {
  const slugs = ['eo-three', 'eo-one', 'eo-none'];
  const plain = new Map((await stores.events.findBySlugs(slugs)).map((e) => [e.id, e]));
  const organizers = await stores.events.organizerIds([...plain.keys()]);
  for (const { organizerIds, ...event } of await stores.events.findBySlugsWithOrganizers(slugs)) {
    expect(event).toEqual(plain.get(event.id));
    expect(sorted(organizerIds)).toEqual(sorted(organizers.get(event.id)!));
  }
});

test('by id: the same, and a changed set of organizers is read as it is now', async () => {
  await stores.events.setOrganizers(ids.one!, [ids.ann!, ids.cy!]);
  const rows = await stores.events.findByIdsWithOrganizers([ids.one!, ids.none!, 999_999]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.size).toBe(2);
  expect(sorted(byId.get(ids.one!)!.organizerIds)).toEqual(sorted([ids.ann!, ids.cy!]));
  expect(byId.get(ids.none!)!.organizerIds).toEqual([]);
});
