import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { run } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';
import { useMigratedDatabase } from '../helpers/harness.js';
import { domainRows, ndjson } from '../helpers/ndjson.js';

const database = useMigratedDatabase();

beforeAll(async () => {
  const res = await cli(
    database.url,
    ['import', '-'],
    ndjson(
      { type: 'user', uid: 'u_stored', email: 'stored@dry.test', name: 'Stored' },
      { type: 'event', slug: 'stored-event', name: 'Stored Event', organizers: ['u_stored'] },
    ),
  );
  expect(res.code).toBe(0);
});

const MIXED = [
  JSON.stringify({ type: 'user', uid: 'u_new', name: 'New' }),
  '{"type":"user",',
  JSON.stringify({ type: 'user', uid: 'u_nameless' }),
  JSON.stringify({ type: 'registration', event: 'stored-event', user: 'u_new' }),
  JSON.stringify({ type: 'registration', event: 'later-event', user: 'u_new' }),
  JSON.stringify({ type: 'event', slug: 'later-event', name: 'Later', organizers: ['ghost@dry.test'] }),
  JSON.stringify({ type: 'event', slug: 'good-event', name: 'Good', organizers: ['u_new'] }),
  JSON.stringify({ type: 'registration', event: 'good-event', user: 'stored@dry.test' }),
  JSON.stringify({ type: 'registration', event: 'good-event', user: 'u_nameless' }),
].join('\n');

describe('roster import --dry-run', () => {
  test('reports every bad line, in order, and writes nothing', async () => {
    const before = await domainRows(database.db);
    const res = await cli(database.url, ['import', '--dry-run', '-', '--json'], MIXED);
    expect(res.code).toBe(1);
    expect(res.json).toEqual({
      ok: false,
      errors: [
        { line: 2, reason: 'not valid JSON' },
        { line: 3, reason: 'name is required for a new user' },
        { line: 5, reason: 'event "later-event" is not defined on an earlier line or in the database' },
        { line: 6, reason: 'organizer "ghost@dry.test" is not defined on an earlier line or in the database' },
        { line: 9, reason: 'user "u_nameless" is not defined on an earlier line or in the database' },
      ],
      more: 0,
      counts: { users: 1, events: 1, registrations: 2 },
    });
    expect(res.stderr).toBe('roster: 5 bad lines (dry run: nothing written)\n');
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('prints one line per bad line for people', async () => {
    const res = await cli(database.url, ['import', '--dry-run', '-'], MIXED);
    expect(res.code).toBe(1);
    expect(res.stdout.split('\n')[0]).toBe('line 2: not valid JSON');
    expect(res.stdout.split('\n')).toHaveLength(6);
  });

  test('a good file: exit 0, the counts, and still nothing written', async () => {
    const before = await domainRows(database.db);
    const good = ndjson(
      { type: 'user', uid: 'u_fine', name: 'Fine' },
      { type: 'registration', event: 'stored-event', user: 'u_fine' },
    );
    const res = await cli(database.url, ['import', '--dry-run', '-', '--json'], good);
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.json).toEqual({ ok: true, errors: [], more: 0, counts: { users: 1, events: 0, registrations: 1 } });
    expect((await cli(database.url, ['import', '--dry-run', '-'], good)).stdout).toBe(
      'dry run: 1 users, 0 events, 1 registrations would be imported\n',
    );
    expect(await domainRows(database.db)).toEqual(before);
  });

  test('lists the first 100 bad lines and counts the rest', async () => {
    const lines = Array.from({ length: 250 }, (_, i) =>
      i % 2 ? JSON.stringify({ type: 'user', uid: `u_ok${i}`, name: 'Ok' }) : '{"type":"ticket"}',
    );
    const res = await cli(database.url, ['import', '--dry-run', '-', '--json'], lines.join('\n'));
    expect(res.code).toBe(1);
    const report = res.json as { errors: { line: number }[]; more: number; counts: { users: number } };
    expect(report.errors).toHaveLength(100);
    expect(report.errors[99]!.line).toBe(199);
    expect(report.more).toBe(25);
    expect(report.counts.users).toBe(125);
  });
});

describe('the progress bar', () => {
  test('on a terminal: bytes as MB and the records read', async () => {
    const path = join(tmpdir(), `roster-progress-${process.pid}.ndjson`);
    const content = ndjson(
      ...Array.from({ length: 4000 }, (_, i) => ({ type: 'user', uid: `u_bar${i}`, name: `Bar ${i}` })),
    );
    writeFileSync(path, content);
    const mb = (content.length / 1e6).toFixed(1);
    expect(mb).not.toBe('0.0');
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const chunks: Buffer[] = [];
    stderr.on('data', (c: Buffer) => chunks.push(c));
    const code = await run(['import', path], {
      stdout: new PassThrough(),
      stderr,
      stdin: Readable.from([]),
      env: { DATABASE_URL: database.url, NODE_ENV: 'test' },
    });
    expect(code).toBe(0);
    expect(Buffer.concat(chunks).toString()).toContain(`100% | ${mb}/${mb} MB | 4000 records`);
  });
});
