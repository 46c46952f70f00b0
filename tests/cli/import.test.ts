import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { domainRows, ndjson } from '../helpers/ndjson.js';

const database = useMigratedDatabase();

const file = (name: string, content: string) => {
  const path = join(tmpdir(), `roster-import-${process.pid}-${name}.ndjson`);
  writeFileSync(path, content);
  return path;
};

const GOOD = ndjson(
  { type: 'user', email: 'Org@Import.test', name: 'Iris Importer', email_verified: true, zoneinfo: 'Europe/Oslo' },
  { type: 'user', uid: 'u_no_mail', name: 'No Mail', activation_state: 'pending' },
  { type: 'user', email: 'reg@import.test', name: 'Reg Istrant', picture: 'https://example.com/r.png' },
  {
    type: 'event',
    slug: 'import-fest',
    name: 'Import Fest',
    organizers: ['org@import.test'],
    visibility: 'private',
    starts_at: '2027-05-01T10:00:00Z',
    ends_at: '2027-05-01T12:00:00Z',
    time_zone: 'Europe/Oslo',
  },
  { type: 'registration', event: 'import-fest', user: 'reg@import.test' },
  { type: 'registration', event: 'import-fest', user: 'u_no_mail' },
  { type: 'registration', event: 'import-fest', user: 'ORG@import.test' },
);

describe('roster import', () => {
  test('loads a file and prints the counts', async () => {
    const res = await cli(database.url, ['import', file('good', GOOD), '--json']);
    expect(res.stderr).toBe('');
    expect(res.json).toEqual({ users: 3, events: 1, registrations: 3 });
    const event = await database.db('events').where({ slug: 'import-fest' }).first();
    expect(event).toMatchObject({ name: 'Import Fest', visibility: 'private', time_zone: 'Europe/Oslo' });
    expect(Number(event.starts_at)).toBe(Date.parse('2027-05-01T10:00:00Z'));
    expect(Number((await database.db('registrations').where({ event_id: event.id }).count({ n: '*' }))[0]!.n)).toBe(3);
    expect(await database.db('users').where({ uid: 'u_no_mail' }).first()).toMatchObject({
      email: null,
      activation_state: 'pending',
    });
  });

  test('a second import of the same file changes nothing, not even updated_at', async () => {
    const before = await domainRows(database.db);
    const res = await cli(database.url, ['import', file('good', GOOD), '--json']);
    expect(res.json).toEqual({ users: 3, events: 1, registrations: 3 });
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('records are upserts: a changed field updates the stored row', async () => {
    const res = await cli(
      database.url,
      ['import', '-', '--json'],
      ndjson({ type: 'user', email: 'reg@import.test', name: 'Reg Renamed', activation_state: 'deactivated' }),
    );
    expect(res.json).toEqual({ users: 1, events: 0, registrations: 0 });
    expect(await database.db('users').where({ email_normalized: 'reg@import.test' }).first()).toMatchObject({
      name: 'Reg Renamed',
      activation_state: 'deactivated',
      picture: 'https://example.com/r.png',
    });
  });

  test.each([
    ['invalid JSON', '{"type":"user",', /line 3: not valid JSON/],
    ['an unknown type', '{"type":"ticket"}', /line 3: type must be/],
    ['an unknown field', '{"type":"user","email":"x@y.test","name":"X","admin":true}', /line 3: unknown field "admin"/],
    ['a bad email', '{"type":"user","email":"nope","name":"X"}', /line 3: email must be an email address/],
    [
      'a forward reference',
      '{"type":"registration","event":"later-event","user":"a@bad.test"}',
      /line 3: event "later-event" is not defined/,
    ],
    [
      'an unknown organizer',
      '{"type":"event","slug":"e","name":"E","organizers":["ghost@x.test"]}',
      /line 3: organizer "ghost@x.test"/,
    ],
    [
      'no organizers',
      '{"type":"event","slug":"e","name":"E","organizers":[]}',
      /line 3: organizers must be a non-empty list/,
    ],
    [
      'ends before it starts',
      '{"type":"event","slug":"e","name":"E","organizers":["a@bad.test"],"starts_at":"2027-01-02T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"}',
      /line 3: ends_at/,
    ],
    [
      'an email owned by another uid',
      '{"type":"user","uid":"u_other","email":"org@import.test","name":"Imposter"}',
      /line 3: email org@import.test already belongs to another user/,
    ],
  ])('%s stops the import with the line number and commits nothing', async (_name, badLine, message) => {
    const before = await domainRows(database.db);
    const content = [
      JSON.stringify({ type: 'user', email: 'a@bad.test', name: 'Should Not Stay' }),
      JSON.stringify({ type: 'user', email: 'b@bad.test', name: 'Nor This' }),
      badLine,
      JSON.stringify({ type: 'user', email: 'c@bad.test', name: 'Never Read' }),
    ].join('\n');
    const res = await cli(database.url, ['import', '-', '--json'], content);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^roster: /);
    expect(res.stderr).toMatch(message);
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('a missing file is a clear error', async () => {
    const res = await cli(database.url, ['import', '/no/such/file.ndjson', '--json']);
    expect(res).toMatchObject({ code: 1, stdout: '' });
    expect(res.stderr).toBe('roster: cannot read /no/such/file.ndjson: no such file\n');
  });

  test('batches larger than one flush keep every record', async () => {
    const users = Array.from({ length: 1200 }, (_, i) => ({
      type: 'user',
      email: `bulk${i}@import.test`,
      name: `Bulk ${i}`,
    }));
    const regs = users.map((u) => ({ type: 'registration', event: 'import-fest', user: u.email }));
    const res = await cli(database.url, ['import', file('bulk', ndjson(...users, ...regs)), '--json']);
    expect(res.json).toEqual({ users: 1200, events: 0, registrations: 1200 });
    const event = await database.db('events').where({ slug: 'import-fest' }).first();
    expect(Number((await database.db('registrations').where({ event_id: event.id }).count({ n: '*' }))[0]!.n)).toBe(
      1203,
    );
  });
});
