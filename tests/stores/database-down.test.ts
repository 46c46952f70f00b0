import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { distPath, useBuiltDist } from '../helpers/build.js';
import { runToExit } from '../helpers/run-to-exit.js';

// A database that cannot be reached or opened at start: the server and the CLI say so in one line on stderr
// (where, never the password) and exit 1 — no stack, no "Acquire connection error" from knex's pool, and
// nothing on stdout, which carries only JSON log lines.
useBuiltDist();

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'roster-db-down-'));
  writeFileSync(join(dir, 'not-a-database.sqlite3'), 'these bytes are not an SQLite database\n'.repeat(40));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CASES: [string, () => string, () => string][] = [
  [
    'PostgreSQL: nothing listening',
    () => 'postgres://roster:s3cret-pw@127.0.0.1:1/roster',
    () => 'roster: the database is not reachable at 127.0.0.1:1 (connection refused)',
  ],
  [
    'PostgreSQL: no such host',
    () => 'postgres://roster:s3cret-pw@db.invalid/roster',
    () => 'roster: the database is not reachable at db.invalid:5432 (host not found)',
  ],
  [
    'SQLite: a directory that cannot be created (a file is in the way)',
    () => 'sqlite:/dev/null/roster/roster.sqlite3',
    () =>
      'roster: the SQLite database /dev/null/roster/roster.sqlite3 cannot be opened (cannot create /dev/null/roster: not a directory)',
  ],
  [
    'SQLite: a directory that cannot be created (in /proc)',
    () => 'sqlite:/proc/roster/roster.sqlite3',
    // mkdir answers ENOENT here though /proc exists: Node's recursive mkdirSync retried that forever.
    () =>
      'roster: the SQLite database /proc/roster/roster.sqlite3 cannot be opened (cannot create /proc/roster: no such file or directory)',
  ],
  [
    'SQLite: the path is a directory',
    () => `sqlite:${dir}`,
    () => `roster: the SQLite database ${dir} cannot be opened (unable to open database file)`,
  ],
  [
    'SQLite: the file is not a database',
    () => `sqlite:${join(dir, 'not-a-database.sqlite3')}`,
    () =>
      `roster: the SQLite database ${join(dir, 'not-a-database.sqlite3')} cannot be opened (file is not a database)`,
  ],
];

const expectOneLine = (res: { code: number | null; stdout: string; stderr: string }, line: string) => {
  expect(res.stderr).not.toMatch(/^\s+at /m);
  expect(res.stderr).not.toContain('Acquire connection error');
  expect(res.stdout).not.toContain('Acquire connection error');
  expect(res.stderr).not.toContain('s3cret-pw');
  expect(res).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
};

describe('the server process', () => {
  test.each(CASES)(
    '%s',
    async (_name, url, line) => {
      const res = await runToExit('server.js', [], {
        NODE_ENV: 'test',
        DATABASE_URL: url(),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
      });
      expectOneLine(res, line());
    },
    60_000,
  );
});

describe('the CLI process', () => {
  test.each(CASES)(
    '%s',
    async (_name, url, line) => {
      const res = await runToExit('cli/index.js', ['migrate', '--json'], { NODE_ENV: 'test', DATABASE_URL: url() });
      expectOneLine(res, line());
    },
    60_000,
  );

  test('a SQLite file several missing directories deep: they are made, and the command runs', async () => {
    const res = await runToExit('cli/index.js', ['migrate', '--json'], {
      NODE_ENV: 'test',
      DATABASE_URL: `sqlite:${join(dir, 'a', 'b', 'c', 'roster.sqlite3')}`,
    });
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(res.stdout) as { migrated: string[] }).migrated.length).toBeGreaterThan(0);
  }, 60_000);

  test('a command that reads first (user list) says the same', async () => {
    const res = await runToExit('cli/index.js', ['user', 'list'], {
      NODE_ENV: 'test',
      DATABASE_URL: 'postgres://roster:s3cret-pw@127.0.0.1:1/roster',
    });
    expectOneLine(res, 'roster: the database is not reachable at 127.0.0.1:1 (connection refused)');
  }, 60_000);
});

test('later, a database gone away fails the query for its caller: knex itself writes nothing to stdout', async () => {
  // /readyz (and every request) reports the error in the JSON log; knex's own warning would be a raw line.
  const script = `
    const { createDb } = await import(${JSON.stringify(distPath('stores/database.js'))});
    const db = createDb('postgres://roster:s3cret-pw@127.0.0.1:1/roster');
    const err = await db.raw('select 1').then(() => undefined, (e) => e);
    await db.destroy();
    process.stderr.write(err ? err.code : 'no error');
  `;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test' },
  });
  expect(stderr).toBe('ECONNREFUSED');
  expect(stdout).toBe('');
}, 30_000);

// Registered in the PostgreSQL run of the suite (scripts/with-postgres.sh), where a server answers and refuses;
// the SQLite run's counterpart is the file that is not a database, above.
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;
if (onPostgres)
  describe('PostgreSQL answers, and refuses', () => {
    test.each([
      ['server.js', []],
      ['cli/index.js', ['migrate', '--json']],
    ])(
      '%s: a database that does not exist',
      async (entry, args) => {
        const url = new URL(process.env.TEST_DATABASE_URL!);
        url.password = 's3cret-pw';
        url.pathname = '/roster_no_such_database';
        const res = await runToExit(entry, args, { NODE_ENV: 'test', DATABASE_URL: url.toString(), PORT: '0' });
        expectOneLine(
          res,
          `roster: the database at ${url.hostname}:${url.port} refused the connection (database "roster_no_such_database" does not exist)`,
        );
      },
      60_000,
    );
  });
