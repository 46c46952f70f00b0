import { createRoster } from './roster.js';
import { loadConfig } from './config.js';
import { createDb, migrate } from './stores/database.js';
import { databaseUnavailable } from './stores/database-errors.js';
import { createHttpServer, listen } from './http/http-server.js';
import { metricsListener } from './observability/metrics-server.js';
import { stopGracefullyOnSignals } from './http/shutdown.js';
import { startTracing } from './observability/tracing.js';
import { seedOnEmptyDatabase, startupBanner } from './startup.js';
import { unsupportedNode } from './lib/supported-node.js';

/** Entry point of `npm start`: migrate, seed demo data on an empty dev database, listen, stop gracefully. */
async function main(): Promise<void> {
  const tooOld = unsupportedNode();
  if (tooOld) throw new Error(tooOld);
  // Before anything else: a bad setting stops the process before it touches the database or a port.
  const config = loadConfig();
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax, traced: config.tracing !== undefined });
  // The first use of the database: when it cannot be reached or opened, one line says where and why.
  await migrate(db).catch((err: unknown) => {
    throw databaseUnavailable(err, config.databaseUrl) ?? err;
  });
  const seeded = config.production ? undefined : await seedOnEmptyDatabase(db, config);
  const roster = await createRoster({ config, db });
  // Before the first request: with no OTLP endpoint set, nothing of the SDK is loaded.
  const tracing = config.tracing && (await startTracing(config.tracing, roster.logger));
  const server = createHttpServer(roster.express);
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : createHttpServer(
          metricsListener(roster.metricsRegistry, (err) => roster.logger.error({ err }, 'metrics not collected')),
        );
  // stdout carries only JSON log lines in every mode; the banner is for a person at a development terminal.
  const banner = config.production ? undefined : await startupBanner(config, roster.services, roster.provider, seeded);
  // Before listening: a signal that comes as soon as /readyz answers still stops the process gracefully.
  stopGracefullyOnSignals({
    server,
    alsoClose: metricsServer ? [metricsServer] : [],
    logger: roster.logger,
    delayMs: config.shutdownDelayMs,
    notReady: () => roster.notReady(),
    async release() {
      await roster.close();
      await db.destroy();
      // Last: the spans of the requests just drained and of the worker's last attempts go out too.
      await tracing?.shutdown();
    },
    exit: (code) => process.exit(code),
  });
  await listen(server, config.port, config.host);
  if (metricsServer) await listen(metricsServer, config.metricsPort!, config.host);
  roster.logger.info(
    { port: config.port, host: config.host, baseUrl: config.baseUrl, metricsPort: config.metricsPort },
    'listening',
  );
  if (banner) process.stderr.write(banner);
}

// One line, no stack: a ConfigError, DatabaseUnavailable or ListenError reads the same here as in the CLI
// (src/cli/main.ts).
main().catch((err: unknown) => {
  process.stderr.write(`roster: ${err instanceof Error ? err.message.split('\n')[0]! : String(err)}\n`);
  process.exit(1);
});
