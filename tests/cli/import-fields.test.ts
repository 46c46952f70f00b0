import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import { ndjson } from '../helpers/ndjson.js';

// A record's field: absent keeps the stored value, null clears it (where the column may be empty), a value sets it.

const database = useMigratedDatabase();
let stores: Stores;

beforeAll(async () => {
  stores = createStores(database.db);
  const res = await cli(database.url, ['import', '-'], ndjson({ type: 'user', uid: 'u_org2', name: 'Second Org' }));
  expect(res.code).toBe(0);
});

const importLines = (...records: object[]) => cli(database.url, ['import', '-', '--json'], ndjson(...records));

const user = (uid: string) => ({
  type: 'user',
  uid,
  email: `${uid}@fields.test`,
  name: 'Full Name',
  email_verified: true,
  picture: 'https://example.com/p.png',
  zoneinfo: 'Europe/Oslo',
  activation_state: 'pending',
});

const event = (slug: string, organizer: string) => ({
  type: 'event',
  slug,
  name: 'Full Event',
  organizers: [organizer],
  visibility: 'private',
  starts_at: '2027-03-01T10:00:00.000Z',
  ends_at: '2027-03-01T12:00:00.000Z',
  time_zone: 'Europe/Oslo',
  location: 'Hall B, Berlin',
});

/** The stored user, without the timestamps an update moves. */
async function storedUser(uid: string) {
  const { createdAt: _c, updatedAt, id: _i, passwordHash: _p, ...fields } = (await stores.users.findByUid(uid))!;
  return { fields, updatedAt };
}

async function storedEvent(slug: string) {
  const row = (await stores.events.findBySlug(slug))!;
  const { createdAt: _c, updatedAt, id, ...fields } = row;
  return { fields: { ...fields, organizers: (await stores.events.organizerUids([id])).get(id) }, updatedAt };
}

// field in the record → [key in the stored row, a new value as imported, the same as stored]
const USER_FIELDS: Record<string, [string, unknown, unknown]> = {
  email: ['email', 'New@Fields.test', 'New@Fields.test'],
  name: ['name', 'New Name', 'New Name'],
  email_verified: ['emailVerified', false, false],
  picture: ['picture', 'https://example.com/new.png', 'https://example.com/new.png'],
  zoneinfo: ['zoneinfo', 'Asia/Tokyo', 'Asia/Tokyo'],
  activation_state: ['activationState', 'deactivated', 'deactivated'],
};
const USER_CLEARABLE = new Set(['email', 'picture', 'zoneinfo']);

describe('user records', () => {
  let n = 0;
  const fresh = async () => {
    const uid = `u_f${(n += 1)}`;
    expect((await importLines(user(uid))).code).toBe(0);
    return { uid, before: await storedUser(uid) };
  };

  test.each(Object.keys(USER_FIELDS))('%s absent: kept, and nothing is written', async (field) => {
    const { uid, before } = await fresh();
    const partial: Record<string, unknown> = { ...user(uid) };
    delete partial[field];
    expect((await importLines(partial)).json).toEqual({ users: 1, events: 0, registrations: 0 });
    expect(await storedUser(uid)).toEqual(before);
  });

  test.each(Object.entries(USER_FIELDS))('%s given: only it changes', async (field, [key, value, stored]) => {
    const { uid, before } = await fresh();
    expect((await importLines({ type: 'user', uid, [field]: value })).code).toBe(0);
    expect((await storedUser(uid)).fields).toEqual({ ...before.fields, [key]: stored });
  });

  test.each(Object.entries(USER_FIELDS))(
    '%s null: cleared where it may be empty, else refused',
    async (field, [key]) => {
      const { uid, before } = await fresh();
      const res = await importLines({ type: 'user', uid, [field]: null });
      if (USER_CLEARABLE.has(field)) {
        expect(res.code).toBe(0);
        expect((await storedUser(uid)).fields).toEqual({ ...before.fields, [key]: null });
      } else {
        expect(res.code).toBe(1);
        expect(res.stderr).toMatch(/^roster: line 1: /);
        expect(await storedUser(uid)).toEqual(before);
      }
    },
  );

  test('a user matched by email alone keeps its name; the email takes the record spelling', async () => {
    const { uid, before } = await fresh();
    expect((await importLines({ type: 'user', email: `${uid}@FIELDS.test`, zoneinfo: 'UTC' })).code).toBe(0);
    expect((await storedUser(uid)).fields).toEqual({ ...before.fields, email: `${uid}@FIELDS.test`, zoneinfo: 'UTC' });
  });

  test('a new user needs a name; a repeat in the same file may leave it out', async () => {
    const res = await importLines({ type: 'user', uid: 'u_nameless', email: 'nameless@fields.test' });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('roster: line 1: name is required for a new user\n');
    expect(await stores.users.findByUid('u_nameless')).toBeUndefined();
    const ok = await importLines(
      { type: 'user', uid: 'u_named', name: 'Named' },
      { type: 'user', uid: 'u_named', zoneinfo: 'UTC' },
    );
    expect(ok.code).toBe(0);
    expect(await stores.users.findByUid('u_named')).toMatchObject({ name: 'Named', zoneinfo: 'UTC' });
  });
});

// field in the record → [key in the stored row, a new value as imported, the same as stored]
const EVENT_FIELDS: Record<string, [string, unknown, unknown]> = {
  name: ['name', 'New Event Name', 'New Event Name'],
  organizers: ['organizers', ['u_org2'], ['u_org2']],
  visibility: ['visibility', 'public', 'public'],
  starts_at: ['startsAt', '2027-03-01T09:00:00Z', Date.parse('2027-03-01T09:00:00Z')],
  ends_at: ['endsAt', '2027-03-02T00:00:00Z', Date.parse('2027-03-02T00:00:00Z')],
  time_zone: ['timeZone', 'Asia/Tokyo', 'Asia/Tokyo'],
  location: ['location', '  Room 4, Oslo ', 'Room 4, Oslo'],
};
const EVENT_CLEARABLE = new Set(['starts_at', 'ends_at', 'time_zone', 'location']);

describe('event records', () => {
  let n = 0;
  const fresh = async () => {
    const slug = `ev-f${(n += 1)}`;
    expect((await importLines(user(`u_o${n}`), event(slug, `u_o${n}`))).code).toBe(0);
    return { slug, before: await storedEvent(slug) };
  };

  test.each(Object.keys(EVENT_FIELDS))('%s absent: kept, and nothing is written', async (field) => {
    const { slug, before } = await fresh();
    const partial: Record<string, unknown> = { ...event(slug, 'u_org2') };
    partial.organizers = before.fields.organizers;
    delete partial[field];
    expect((await importLines(partial)).json).toEqual({ users: 0, events: 1, registrations: 0 });
    expect(await storedEvent(slug)).toEqual(before);
  });

  test.each(Object.entries(EVENT_FIELDS))('%s given: only it changes', async (field, [key, value, stored]) => {
    const { slug, before } = await fresh();
    expect((await importLines({ type: 'event', slug, [field]: value })).code).toBe(0);
    expect((await storedEvent(slug)).fields).toEqual({ ...before.fields, [key]: stored });
  });

  test.each(Object.entries(EVENT_FIELDS))(
    '%s null: cleared where it may be empty, else refused',
    async (field, [key]) => {
      const { slug, before } = await fresh();
      const res = await importLines({ type: 'event', slug, [field]: null });
      if (EVENT_CLEARABLE.has(field)) {
        expect(res.code).toBe(0);
        expect((await storedEvent(slug)).fields).toEqual({ ...before.fields, [key]: null });
      } else {
        expect(res.code).toBe(1);
        expect(res.stderr).toMatch(/^roster: line 1: /);
        expect(await storedEvent(slug)).toEqual(before);
      }
    },
  );

  test('one end of the time range is checked against the stored other end', async () => {
    const { slug, before } = await fresh();
    const res = await importLines({ type: 'event', slug, starts_at: '2027-03-05T00:00:00Z' });
    expect(res.stderr).toBe('roster: line 1: ends_at must not be before starts_at\n');
    expect(await storedEvent(slug)).toEqual(before);
  });

  test.each([
    ['organizers', { name: 'No Organizers' }],
    ['name', { organizers: ['u_org2'] }],
  ])('a new event needs its %s', async (field, fields) => {
    const res = await importLines({ type: 'event', slug: `new-without-${field}`, ...fields });
    expect(res.stderr).toBe(`roster: line 1: ${field} is required for a new event\n`);
    expect(await stores.events.findBySlug(`new-without-${field}`)).toBeUndefined();
  });
});
