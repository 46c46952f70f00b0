import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { createDb, migrate } from '../../src/stores/knex.js';
import { freshDatabase, type TestServer } from './harness.js';

/** A TestServer that also hands over its Express app and its node:http server, for tests about those themselves. */
export interface AppServer extends TestServer {
  app: Express;
  http: Server;
}

/** As harness.startServer: the real service on an ephemeral port against a fresh database. */
export async function startAppServer(
  env: NodeJS.ProcessEnv = {},
  options: { logger?: Logger } = {},
): Promise<AppServer> {
  const database = await freshDatabase();
  const http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'test', BASE_URL: url, DATABASE_URL: database.url, ...env }, false);
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  await migrate(db);
  const roster = await createApp({ config, db, logger: options.logger });
  http.on('request', roster.app);
  return {
    url,
    config,
    db,
    stores: roster.stores,
    provider: roster.provider,
    app: roster.app,
    http,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await roster.close();
      await db.destroy();
      await database.drop();
    },
  };
}
