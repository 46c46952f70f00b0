import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createDb, migrate } from './db/knex.js';
import { createStores } from './db/stores.js';
import { createHttpServer } from './http-server.js';
import { stopGracefullyOnSignals } from './shutdown.js';
import { seedOnEmptyDatabase, startupBanner } from './startup.js';

/** Entry point of `npm start`: migrate, seed demo data on an empty dev database, listen, stop gracefully. */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  await migrate(db);
  const stores = createStores(db);
  const seeded = config.production ? undefined : await seedOnEmptyDatabase(db);
  const roster = await createApp({ config, db });
  const server = createHttpServer(roster.app);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  roster.logger.info({ port: config.port, host: config.host }, 'listening');
  process.stdout.write(await startupBanner(config, stores, roster.provider, seeded));

  stopGracefullyOnSignals({
    server,
    logger: roster.logger,
    delayMs: config.shutdownDelayMs,
    notReady: () => roster.notReady(),
    async release() {
      await roster.close();
      await db.destroy();
    },
    exit: (code) => process.exit(code),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`roster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
