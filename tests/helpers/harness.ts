import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import knexFactory from 'knex';
import { createRoster } from '../../src/roster.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDb, migrate, type Db } from '../../src/stores/database.js';
import { createHttpServer } from '../../src/http/http-server.js';
import type { Stores } from '../../src/stores/stores.js';
import type { Services } from '../../src/services/services.js';

export interface TestServer {
  url: string;
  config: Config;
  db: Db;
  stores: Stores;
  services: Services;
  /** Looks for due webhook deliveries now, not at the next poll. */
  nudgeWebhooks(): void;
  provider: Provider;
  /** The Express application and its node:http server, for tests about those themselves. */
  express: Express;
  http: Server;
  close(): Promise<void>;
}

/** A fresh, migrated database: a temp SQLite file, or a new PostgreSQL database when TEST_DATABASE_URL is set. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `roster_test_${randomBytes(6).toString('hex')}`;
  const admin = process.env.TEST_DATABASE_URL;
  if (admin) {
    const adminDb = knexFactory({ client: 'pg', connection: admin, pool: { min: 0, max: 1 } });
    await adminDb.raw(`CREATE DATABASE ${name}`);
    await adminDb.destroy();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const again = knexFactory({ client: 'pg', connection: admin, pool: { min: 0, max: 1 } });
        await again.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await again.destroy();
      },
    };
  }
  const file = join(tmpdir(), `${name}.sqlite3`);
  return {
    url: `sqlite:${file}`,
    async drop() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
  };
}

/** Starts the real service on an ephemeral port against a fresh database. */
export async function startServer(env: NodeJS.ProcessEnv = {}, options: { logger?: Logger } = {}): Promise<TestServer> {
  const database = await freshDatabase();
  const server: Server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'test', BASE_URL: url, DATABASE_URL: database.url, ...env }, false);
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  await migrate(db);
  const roster = await createRoster({ config, db, logger: options.logger });
  server.on('request', roster.express);
  return {
    url,
    config,
    db,
    stores: roster.stores,
    services: roster.services,
    nudgeWebhooks: () => roster.nudgeWebhooks(),
    provider: roster.provider,
    express: roster.express,
    http: server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await roster.close();
      await db.destroy();
      await database.drop();
    },
  };
}

/** A fresh, migrated database for one test file, with a connection to inspect it (closed and dropped after). */
export function useMigratedDatabase(): { readonly url: string; readonly db: Db } {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await freshDatabase();
    db = createDb(database.url);
    await migrate(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });
  return {
    get url() {
      return database!.url;
    },
    get db() {
      return db!;
    },
  };
}
