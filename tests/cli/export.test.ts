import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/harness.js';
import { sqlDuring } from '../helpers/sql.js';
import { createDb } from '../../src/stores/database.js';
import { createServices } from '../../src/services/services.js';
import { EXPORT_PAGE } from '../../src/services/import/ndjson-export.js';
import { createStores } from '../../src/stores/stores.js';
import { Writable } from 'node:stream';
import { ndjson } from '../helpers/ndjson.js';

const SAMPLE = ndjson(
  {
    type: 'user',
    uid: 'u_ada',
    email: 'Ada@Export.test',
    name: 'Ada',
    email_verified: true,
    picture: 'https://example.com/a.png',
    zoneinfo: 'Europe/London',
    activation_state: 'active',
  },
  { type: 'user', uid: 'u_bob', name: 'Bob', activation_state: 'pending' },
  { type: 'user', email: 'cy@export.test', name: 'Cy' },
  {
    type: 'event',
    slug: 'launch',
    name: 'Launch',
    organizers: ['u_bob', 'ada@export.test'],
    visibility: 'private',
    starts_at: '2027-01-01T18:00:00Z',
    ends_at: '2027-01-01T22:00:00Z',
    time_zone: 'Europe/London',
  },
  { type: 'event', slug: 'open-day', name: 'Open Day', organizers: ['cy@export.test'] },
  { type: 'registration', event: 'launch', user: 'cy@export.test' },
  { type: 'registration', event: 'open-day', user: 'u_ada' },
  { type: 'registration', event: 'launch', user: 'u_bob' },
);

const LATE = ndjson(
  { type: 'user', uid: 'u_late', name: 'Late' },
  { type: 'registration', event: 'event-0', user: 'u_late' },
);

const databases: { url: string; drop(): Promise<void> }[] = [];
async function database() {
  const d = await freshDatabase();
  databases.push(d);
  expect((await cli(d.url, ['migrate'])).code).toBe(0);
  return d.url;
}
afterAll(async () => {
  for (const d of databases) await d.drop();
});

describe('roster export', () => {
  test('export → import into an empty database → export is identical', async () => {
    const first = await database();
    expect((await cli(first, ['import', '-'], SAMPLE)).code).toBe(0);
    const exported = await cli(first, ['export']);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const lines = exported.stdout.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'user',
      'user',
      'user',
      'event',
      'event',
      'registration',
      'registration',
      'registration',
    ]);
    expect(JSON.parse(lines[3]!)).toEqual({
      type: 'event',
      slug: 'launch',
      name: 'Launch',
      organizers: ['u_ada', 'u_bob'],
      visibility: 'private',
      starts_at: '2027-01-01T18:00:00.000Z',
      ends_at: '2027-01-01T22:00:00.000Z',
      time_zone: 'Europe/London',
      location: null,
    });
    expect(JSON.parse(lines[5]!)).toEqual({ type: 'registration', event: 'launch', user: expect.any(String) });

    const second = await database();
    expect((await cli(second, ['import', '-', '--json'], exported.stdout)).json).toEqual({
      users: 3,
      events: 2,
      registrations: 3,
    });
    expect((await cli(second, ['export', '-'])).stdout).toBe(exported.stdout);
  });

  test('to a file: prints the counts; an unwritable path is one line', async () => {
    const url = await database();
    expect((await cli(url, ['import', '-'], SAMPLE)).code).toBe(0);
    const path = join(tmpdir(), `roster-export-${process.pid}.ndjson`);
    const res = await cli(url, ['export', path, '--json']);
    expect(res.json).toEqual({ users: 3, events: 2, registrations: 3, file: path });
    expect(readFileSync(path, 'utf8')).toBe((await cli(url, ['export'])).stdout);
    const bad = await cli(url, ['export', '/no/such/dir/out.ndjson']);
    expect(bad).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'roster: cannot write /no/such/dir/out.ndjson: ENOENT\n',
    });
    expect((await cli(url, ['export', '--json'])).code).toBe(2);
  });

  test('streams a large database in keyset pages, from one moment', async () => {
    const url = await database();
    const users = 2_000;
    const registrations = 50_000;
    const content = [
      ...Array.from({ length: users }, (_, i) => JSON.stringify({ type: 'user', uid: `u_${i}`, name: `User ${i}` })),
      ...Array.from({ length: 25 }, (_, e) =>
        JSON.stringify({ type: 'event', slug: `event-${e}`, name: `Event ${e}`, organizers: [`u_${e}`] }),
      ),
      ...Array.from({ length: registrations }, (_, i) =>
        JSON.stringify({ type: 'registration', event: `event-${i % 25}`, user: `u_${Math.floor(i / 25)}` }),
      ),
    ].join('\n');
    expect((await cli(url, ['import', '-'], content)).code).toBe(0);

    const db = createDb(url);
    try {
      let lines = 0;
      let biggestWrite = 0; // in records
      let late = false;
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          const records = chunk.toString().split('\n').length - 1;
          expect(chunk.toString()).not.toContain('u_late');
          lines += records;
          biggestWrite = Math.max(biggestWrite, records);
          if (late) return done();
          // After the first page, from another connection: a user and a registration the export must not see.
          late = true;
          cli(url, ['import', '-'], LATE).then((r) => done(r.code === 0 ? null : new Error(r.stderr)), done);
        },
      });
      const { result, sql } = await sqlDuring(db, () => createServices(createStores(db)).exporter.run(sink));
      expect(result).toEqual({ users, events: 25, registrations });
      expect(lines).toBe(users + 25 + registrations);
      // Every read is one bounded page: a LIMIT on each SELECT, one statement per page of registrations.
      const selects = sql.filter((s) => /^select/i.test(s));
      expect(selects.every((s) => /limit/i.test(s) || /event_organizers/.test(s))).toBe(true);
      const registrationPages = selects.filter((s) => /from ["`]registrations["`]/i.test(s));
      expect(registrationPages).toHaveLength(Math.ceil(registrations / EXPORT_PAGE));
      // No write holds more than a page of records.
      expect(biggestWrite).toBe(EXPORT_PAGE);
      expect(await db('users').where({ uid: 'u_late' }).first()).toBeDefined();
    } finally {
      await db.destroy();
    }
  }, 120_000);
});
