import { Readable } from 'node:stream';
import { NdjsonImporter } from '../../src/services/import/ndjson-import.js';
import { createStores } from '../../src/stores/stores.js';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { domainRows, ndjson } from '../helpers/ndjson.js';

// Long runs of registrations (on PostgreSQL staged whole by COPY and applied at the run's end) keep the
// import's rules: the first bad line stops it with nothing stored, ids follow the file, repeats count.

const database = useMigratedDatabase();
const RUN = 1500;

const importText = (text: string) => cli(database.url, ['import', '-', '--json'], text);
const dryRun = (text: string) => cli(database.url, ['import', '--dry-run', '-', '--json'], text);
const users = Array.from({ length: RUN }, (_, i) => ({ type: 'user', uid: `u_run${i}`, name: `Run ${i}` }));
const register = (user: string, event = 'run-event') => ({ type: 'registration', event, user });
const lines = (...records: (object | string)[]) =>
  records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

beforeAll(async () => {
  const res = await importText(
    ndjson(
      ...users,
      // An email with a backslash: COPY's text format must carry it as it is.
      { type: 'user', uid: 'u_slash', email: 'back\\slash@Run.test', name: 'Back Slash' },
      { type: 'event', slug: 'run-event', name: 'Run Event', organizers: ['u_run0'] },
    ),
  );
  expect(res.json).toEqual({ users: RUN + 1, events: 1, registrations: 0 });
});

describe('a long run of registrations', () => {
  test('an unknown user after many good lines stores nothing and names its line', async () => {
    const before = await domainRows(database.db);
    const res = await importText(ndjson(...users.map((u) => register(u.uid)), register('u_ghost')));
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `roster: line ${RUN + 1}: user "u_ghost" is not defined on an earlier line or in the database\n`,
    );
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('the first bad line is the one reported, even when a later line is not JSON', async () => {
    const before = await domainRows(database.db);
    const text = lines(...users.slice(0, 700).map((u) => register(u.uid)), register('u_run1', 'no-such-event'), '{');
    const res = await importText(text);
    expect(res.stderr).toBe(
      'roster: line 701: event "no-such-event" is not defined on an earlier line or in the database\n',
    );
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('a user defined after the run is not yet known to it', async () => {
    const text = ndjson(register('u_later'), { type: 'user', uid: 'u_later', name: 'Later' }, register('u_later'));
    const res = await importText(text);
    expect(res.stderr).toBe('roster: line 1: user "u_later" is not defined on an earlier line or in the database\n');
    const later = ndjson(register('u_run7'), { type: 'user', uid: 'u_later', name: 'Later' }, register('u_later'));
    expect((await importText(later)).json).toEqual({ users: 1, events: 0, registrations: 2 });
    const uids = await database.db('registrations as r').join('users as u', 'u.id', 'r.user_id').pluck('u.uid');
    expect(uids).toEqual(expect.arrayContaining(['u_run7', 'u_later']));
  });

  test('repeats count every time, are stored once, and ids follow the file', async () => {
    const order = [...users.slice(0, 600)].reverse().map((u) => u.uid);
    const text = ndjson(
      ...order.map((uid) => register(uid)),
      register('u_run599'),
      register('BACK\\slash@run.test'),
      register('back\\slash@run.test'),
    );
    const last = Number((await database.db('registrations').max({ id: 'id' }))[0]!.id ?? 0);
    const res = await importText(text);
    expect(res.json).toEqual({ users: 0, events: 0, registrations: 603 });
    const stored = await database
      .db('registrations as r')
      .join('users as u', 'u.id', 'r.user_id')
      .where('r.id', '>', last)
      .orderBy('r.id')
      .pluck('u.uid');
    // u_run7 was registered by an earlier test: that pair stays as it was.
    expect(stored).toEqual([...order.filter((uid) => uid !== 'u_run7'), 'u_slash']);

    const again = await domainRows(database.db);
    expect((await importText(text)).json).toEqual({ users: 0, events: 0, registrations: 603 });
    expect(await domainRows(database.db)).toEqual(again);
  });

  test('a dry run lists the lowest-numbered bad lines in order and counts the rest', async () => {
    const before = await domainRows(database.db);
    const text = lines(
      ...Array.from({ length: 150 }, (_, i) => register(`u_missing${i}`)),
      'not json',
      register('u_run1'),
      { type: 'ticket' },
    );
    const res = await dryRun(text);
    expect(res.code).toBe(1);
    const report = res.json as { errors: { line: number; reason: string }[]; more: number; counts: object };
    expect(report.errors.map((e) => e.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(report.errors[0]!.reason).toBe('user "u_missing0" is not defined on an earlier line or in the database');
    expect(report.more).toBe(52);
    expect(report.counts).toEqual({ users: 0, events: 0, registrations: 1 });
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('input failing in the middle of a run stores nothing and leaves the database usable', async () => {
    const before = await domainRows(database.db);
    async function* failing() {
      for (const u of users.slice(0, 800)) yield `${JSON.stringify(register(u.uid))}\n`;
      throw new Error('disk went away');
    }
    const importer = new NdjsonImporter(createStores(database.db));
    await expect(importer.run(Readable.from(failing()))).rejects.toThrow('disk went away');
    expect(await domainRows(database.db)).toEqual(before);
    await expect(importer.run(Readable.from([ndjson(register('u_run1'))]))).resolves.toMatchObject({
      registrations: 1,
    });
  });
});

describe('events repeated within one batch', () => {
  const organizersOf = (slug: string) =>
    database
      .db('event_organizers as o')
      .join('events as e', 'e.id', 'o.event_id')
      .join('users as u', 'u.id', 'o.user_id')
      .where('e.slug', slug)
      .orderBy('u.uid')
      .pluck('u.uid');
  const at = (iso: string) => ({ starts_at: `2027-01-01T${iso}:00Z` });

  test('later records update what earlier ones created or changed; ids follow first appearance', async () => {
    const stored = await database.db('events').where({ slug: 'run-event' }).first();
    const text = ndjson(
      { type: 'event', slug: 'rep-a', name: 'A', organizers: ['u_run0'], ...at('10'), ends_at: '2027-01-01T12:00:00Z' },
      { type: 'event', slug: 'rep-b', name: 'B', organizers: ['u_run1', 'u_run1'] },
      { type: 'event', slug: 'rep-a', name: 'A2', organizers: ['u_run3', 'u_run2'] },
      { type: 'event', slug: 'run-event', organizers: ['u_run1', 'u_run0'] },
      { type: 'event', slug: 'run-event', name: 'Run Event' },
    );
    expect((await importText(text)).json).toEqual({ users: 0, events: 5, registrations: 0 });
    const slugs = await database.db('events').orderBy('id').pluck('slug');
    expect(slugs.slice(-2)).toEqual(['rep-a', 'rep-b']);
    expect(await database.db('events').where({ slug: 'rep-a' }).first()).toMatchObject({
      name: 'A2',
      time_zone: null,
      visibility: 'public',
    });
    expect(Number((await database.db('events').where({ slug: 'rep-a' }).first()).ends_at)).toBe(
      Date.parse('2027-01-01T12:00:00Z'),
    );
    expect(await organizersOf('rep-a')).toEqual(['u_run2', 'u_run3']);
    expect(await organizersOf('rep-b')).toEqual(['u_run1']);
    expect(await organizersOf('run-event')).toEqual(['u_run0', 'u_run1']);
    const changed = await database.db('events').where({ slug: 'run-event' }).first();
    expect({ name: changed.name, moved: Number(changed.updated_at) > Number(stored.updated_at) }).toEqual({
      name: 'Run Event',
      moved: true,
    });

    // Without a repeat that changes its own event, a second import writes nothing.
    const before = await domainRows(database.db);
    const again = text
      .split('\n')
      .slice(1)
      .filter((l) => !l.includes('"rep-a"'))
      .join('\n');
    expect((await importText(again)).json).toEqual({ users: 0, events: 3, registrations: 0 });
    expect(await domainRows(database.db)).toEqual(before);
  });

  test("a record's time range is checked against an earlier record's in the same batch", async () => {
    const text = ndjson(
      { type: 'event', slug: 'rep-c', name: 'C', organizers: ['u_run0'], ...at('10'), ends_at: '2027-01-01T12:00:00Z' },
      { type: 'event', slug: 'rep-c', ...at('13') },
    );
    const res = await dryRun(text);
    expect(res.json).toMatchObject({
      errors: [{ line: 2, reason: 'ends_at must not be before starts_at' }],
      counts: { events: 1 },
    });
  });
});
