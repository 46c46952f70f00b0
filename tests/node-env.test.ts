import knexFactory from 'knex';
import { ConfigError, loadConfig } from '../src/config.js';
import { useBuiltDist } from './helpers/build.js';
import { cli } from './helpers/cli.js';
import { freshDatabase } from './helpers/harness.js';
import { runToExit } from './helpers/run-to-exit.js';

// NODE_ENV decides whether the demo organizer (with its published password) is loaded: a typo must not
// turn a production box into a demo box. production, development and test only; unset means development.
useBuiltDist();

const load = (env: NodeJS.ProcessEnv) => loadConfig(env, false);
const ACCEPTED = 'NODE_ENV must be production, development or test';

describe('loadConfig', () => {
  test.each<[string | undefined, string]>([
    [undefined, 'development'],
    ['', 'development'],
    ['development', 'development'],
    ['test', 'test'],
    ['production', 'production'],
  ])('NODE_ENV=%j is %s', (value, nodeEnv) => {
    const config = load({ NODE_ENV: value, BASE_URL: 'https://roster.example.com' });
    expect(config.nodeEnv).toBe(nodeEnv);
    expect(config.production).toBe(nodeEnv === 'production');
  });

  test.each(['prodution', 'Production', 'PRODUCTION', 'production ', ' production', 'prod', 'staging', 'dev', 'tests'])(
    'NODE_ENV=%j is refused in one line naming the accepted values',
    (value) => {
      let thrown: unknown;
      try {
        load({ NODE_ENV: value, BASE_URL: 'https://roster.example.com' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toBe(`${ACCEPTED}, got ${JSON.stringify(value)}`);
    },
  );

  test('a value with a line break is shown escaped: the message stays one line', () => {
    expect(() => load({ NODE_ENV: 'production\nINJECTED' })).toThrow(
      new ConfigError(`${ACCEPTED}, got "production\\nINJECTED"`),
    );
  });

  test('NODE_ENV is checked first: its message comes before what it would have made of other settings', () => {
    // Under NODE_ENV=production a missing BASE_URL is an error of its own; the typo is what to fix.
    expect(() => load({ NODE_ENV: 'prodution' })).toThrow(new ConfigError(`${ACCEPTED}, got "prodution"`));
  });
});

/** What a refused start left in the database: the tables it has, and its users. */
async function leftIn(url: string): Promise<{ tables: boolean; users: number }> {
  const db = url.startsWith('sqlite:')
    ? knexFactory({ client: 'better-sqlite3', connection: { filename: url.slice(7) }, useNullAsDefault: true })
    : knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const tables = (await db.schema.hasTable('knex_migrations')) || (await db.schema.hasTable('users'));
    const users = (await db.schema.hasTable('users')) ? Number((await db('users').count({ n: '*' }))[0]!.n) : 0;
    return { tables, users };
  } finally {
    await db.destroy();
  }
}

describe('a typo in NODE_ENV stops the start in one line, before the database is touched', () => {
  let database: { url: string; drop(): Promise<void> };

  beforeEach(async () => {
    database = await freshDatabase();
  });

  afterEach(async () => {
    expect(await leftIn(database.url)).toEqual({ tables: false, users: 0 });
    await database.drop();
  });

  const line = `roster: ${ACCEPTED}, got "prodution"\n`;

  test('the server process', async () => {
    const res = await runToExit('server.js', [], {
      NODE_ENV: 'prodution',
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
    });
    expect(res).toEqual({ code: 1, stdout: '', stderr: line });
  }, 60_000);

  test.each([['seed', '--json'], ['migrate'], ['user', 'list', '--json']])(
    'the CLI process: roster %s',
    async (...args) => {
      const res = await runToExit('cli/index.js', args, { NODE_ENV: 'prodution', DATABASE_URL: database.url });
      expect(res).toEqual({ code: 1, stdout: '', stderr: line });
    },
    60_000,
  );

  test('the CLI in-process, as the other CLI tests drive it', async () => {
    const res = await cli(database.url, ['seed', '--json'], '', { NODE_ENV: 'prodution' });
    expect(res).toMatchObject({ code: 1, stdout: '', stderr: line });
  });
});
