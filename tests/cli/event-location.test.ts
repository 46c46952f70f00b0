import { cli } from '../helpers/cli.js';
import { freshDatabase, useMigratedDatabase } from '../helpers/harness.js';
import { domainRows, ndjson } from '../helpers/ndjson.js';

// An event's location, free text of at most 200 characters: set, changed and cleared from the CLI, imported
// (refused with its line when too long or carrying a control character), and exported as it is stored.

const database = useMigratedDatabase();
const roster = (...args: string[]) => cli(database.url, args);
const importText = (text: string) => cli(database.url, ['import', '-', '--json'], text);
const storedLocation = async (slug: string) =>
  ((await database.db('events').where({ slug }).first()) as { location: string | null }).location;

beforeAll(async () => {
  expect((await roster('user', 'create', '--email', 'loc@example.com', '--name', 'Lou Cation')).code).toBe(0);
});

describe('roster event create and update', () => {
  test('--location is stored and printed; an event without one has null', async () => {
    const created = await roster(
      ...['event', 'create', '--slug', 'hall-b', '--name', 'Hall B Meetup', '--organizer', 'loc@example.com'],
      ...['--location', 'Hall B, Berlin', '--json'],
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ slug: 'hall-b', location: 'Hall B, Berlin' });
    expect(await storedLocation('hall-b')).toBe('Hall B, Berlin');

    const plain = await roster(
      ...['event', 'create', '--slug', 'nowhere', '--name', 'Nowhere', '--organizer', 'loc@example.com', '--json'],
    );
    expect(plain.json).toMatchObject({ slug: 'nowhere', location: null });
    expect(await storedLocation('nowhere')).toBeNull();
  });

  test('show prints it, for people and with --json', async () => {
    expect((await roster('event', 'show', '--event', 'hall-b', '--json')).json).toMatchObject({
      location: 'Hall B, Berlin',
    });
    expect((await roster('event', 'show', '--event', 'hall-b')).stdout).toMatch(/^location +Hall B, Berlin$/m);
    expect((await roster('event', 'show', '--event', 'nowhere')).stdout).toMatch(/^location +-$/m);
    const listed = (await roster('event', 'list', '--json')).json as { events: { slug: string; location: unknown }[] };
    expect(listed.events.find((e) => e.slug === 'hall-b')?.location).toBe('Hall B, Berlin');
  });

  test('update --location changes it (trimmed), --no-location clears it, other updates keep it', async () => {
    const changed = await roster('event', 'update', '--event', 'hall-b', '--location', '  Room 4, Oslo ', '--json');
    expect(changed.code).toBe(0);
    expect(changed.json).toMatchObject({ location: 'Room 4, Oslo', name: 'Hall B Meetup' });

    expect((await roster('event', 'update', '--event', 'hall-b', '--name', 'Renamed', '--json')).json).toMatchObject({
      name: 'Renamed',
      location: 'Room 4, Oslo',
    });

    const cleared = await roster('event', 'update', '--event', 'hall-b', '--no-location', '--json');
    expect(cleared.json).toMatchObject({ location: null, name: 'Renamed' });
    expect(await storedLocation('hall-b')).toBeNull();
  });

  test.each([
    ['201 characters', 'x'.repeat(201), '--location must be at most 200 characters'],
    ['blanks', '   ', '--location must be a non-empty string'],
    [
      'an escape sequence',
      'Hall B\u001b[2J',
      '--location must not contain control or text-direction characters (found U+001B)',
    ],
    [
      'a bidi override',
      'Hall \u202eB',
      '--location must not contain control or text-direction characters (found U+202E)',
    ],
  ])('refuses %s on create and update, naming the option', async (_label, location, message) => {
    const create = await roster(
      ...['event', 'create', '--slug', 'refused', '--name', 'Refused', '--organizer', 'loc@example.com'],
      ...['--location', location],
    );
    expect(create).toMatchObject({ code: 1, stdout: '', stderr: `roster: ${message}\n` });
    expect(await database.db('events').where({ slug: 'refused' }).first()).toBeUndefined();

    const update = await roster('event', 'update', '--event', 'nowhere', '--location', location);
    expect(update).toMatchObject({ code: 1, stdout: '', stderr: `roster: ${message}\n` });
    expect(await storedLocation('nowhere')).toBeNull();
  });

  test('exactly 200 characters is accepted', async () => {
    const res = await roster('event', 'update', '--event', 'nowhere', '--location', 'y'.repeat(200), '--json');
    expect(res.json).toMatchObject({ location: 'y'.repeat(200) });
  });
});

describe('roster import and export', () => {
  const FILE = ndjson(
    { type: 'user', uid: 'u_imp', email: 'imp@example.com', name: 'Imp Orter' },
    { type: 'event', slug: 'imp-hall', name: 'Imported', organizers: ['u_imp'], location: 'Hall B, Berlin' },
    { type: 'event', slug: 'imp-bare', name: 'Bare', organizers: ['u_imp'] },
  );

  test('imports a location; a second import of the same file changes nothing', async () => {
    expect((await importText(FILE)).json).toEqual({ users: 1, events: 2, registrations: 0 });
    expect(await storedLocation('imp-hall')).toBe('Hall B, Berlin');
    expect(await storedLocation('imp-bare')).toBeNull();

    const before = await domainRows(database.db);
    expect((await importText(FILE)).code).toBe(0);
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('a record without location keeps it; null clears it', async () => {
    expect((await importText(ndjson({ type: 'event', slug: 'imp-hall', name: 'Imported Again' }))).code).toBe(0);
    expect(await storedLocation('imp-hall')).toBe('Hall B, Berlin');
    expect((await importText(ndjson({ type: 'event', slug: 'imp-hall', location: null }))).code).toBe(0);
    expect(await storedLocation('imp-hall')).toBeNull();
  });

  test.each([
    ['too long (201 characters)', 'x'.repeat(201), 'location must be at most 200 characters'],
    [
      'with a BEL character',
      'Hall\u0007B',
      'location must not contain control or text-direction characters (found U+0007)',
    ],
    ['that is a number', 42, 'location must be a non-empty string'],
  ])(
    'refuses a location %s with its line number, and commits nothing from the file',
    async (_label, location, reason) => {
      const before = await domainRows(database.db);
      const res = await importText(
        ndjson(
          { type: 'event', slug: 'imp-new', name: 'New', organizers: ['u_imp'], location: 'Fine' },
          { type: 'event', slug: 'imp-bare', location },
        ),
      );
      expect(res).toMatchObject({ code: 1, stdout: '', stderr: `roster: line 2: ${reason}\n` });
      expect(await domainRows(database.db)).toEqual(before);
    },
  );

  test('export writes it; importing the export elsewhere gives the same export', async () => {
    expect(
      (await importText(ndjson({ type: 'event', slug: 'imp-bare', location: 'Café Zürich, 2nd floor' }))).code,
    ).toBe(0);
    const exported = await roster('export');
    expect(exported.code).toBe(0);
    const events = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; slug: string; location?: unknown })
      .filter((r) => r.type === 'event');
    expect(Object.fromEntries(events.map((e) => [e.slug, e.location]))).toMatchObject({
      'imp-bare': 'Café Zürich, 2nd floor',
      'imp-hall': null,
      nowhere: 'y'.repeat(200),
    });

    const elsewhere = await freshDatabase();
    try {
      expect((await cli(elsewhere.url, ['import', '-'], exported.stdout)).code).toBe(0);
      expect((await cli(elsewhere.url, ['export'])).stdout).toBe(exported.stdout);
    } finally {
      await elsewhere.drop();
    }
  });
});
