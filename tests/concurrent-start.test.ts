import { createDb, type Db } from '../src/stores/database.js';
import { migrationSource } from '../src/stores/migrations/index.js';
import { DEMO } from '../src/services/demo-seed.js';
import { useBuiltDist } from './helpers/build.js';
import { freshDatabase } from './helpers/harness.js';
import { spawnServer, stopServers } from './helpers/process.js';

// Instances started together on an empty database (a development demo, a scaled-out deploy): each runs the
// migrations and the demo seed at start, and none may crash or load the demo twice.
useBuiltDist();
const count = async (db: Db, table: string, where: Record<string, unknown>) =>
  Number((await db(table).where(where).count({ n: '*' }))[0]!.n);

test.each([1, 2])(
  'three development instances started at once on an empty database all come up (round %i)',
  async () => {
    const database = await freshDatabase();
    const started = await Promise.allSettled(
      Array.from({ length: 3 }, () => spawnServer({ NODE_ENV: 'development', DATABASE_URL: database.url })),
    );
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const db = createDb(database.url);
    try {
      expect(started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []))).toEqual([]);
      for (const server of servers) {
        expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        expect(server.proc.exitCode).toBeNull();
      }
      // The demo data is there once, and exactly one instance printed its one-time credentials.
      expect(servers.filter((s) => s.output().includes('Demo data loaded')).length).toBe(1);
      expect(await count(db, 'users', { email_normalized: DEMO.organizerEmail })).toBe(1);
      expect(await count(db, 'client_apps', { client_id: DEMO.clientId })).toBe(1);
      expect(await count(db, 'events', { slug: DEMO.eventSlug })).toBe(1);
      // One row in knex's migration lock table: with two, no later migration could ever take the lock.
      expect(await count(db, 'knex_migrations_lock', {})).toBe(1);
      // Each migration recorded once.
      expect(await count(db, 'knex_migrations', {})).toBe((await migrationSource.getMigrations([])).length);
      // Every instance publishes the same signing key.
      const jwks = await Promise.all(servers.map(async (s) => (await fetch(`${s.url}/jwks`)).text()));
      expect(new Set(jwks).size).toBe(1);
    } finally {
      await stopServers(servers);
      await db.destroy();
      await database.drop();
    }
  },
  60_000,
);
