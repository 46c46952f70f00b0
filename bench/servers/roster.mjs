// Roster as shipped: the `npm start` app on SQLite (no demo seed), on PORT; traced as server.ts traces it when
// an OTLP endpoint is set (bench/tracing.mjs), else with nothing of tracing loaded.
import { createServer } from 'node:http';
import { createRoster } from '../../dist/roster.js';
import { loadConfig } from '../../dist/config.js';
import { createDb } from '../../dist/stores/database.js';
import { startTracing } from '../../dist/observability/tracing.js';

// Every check stays on: the rate limit (with a budget the benchmark cannot exhaust) and the request log
// (one JSON line per request, to stdout: /dev/null here, a pipe to a collector in production).
const config = loadConfig(
  { RATE_LIMIT_POINTS: '1000000000', LOG_LEVEL: 'info', ...process.env, NODE_ENV: 'production' },
  false,
);
const db = createDb(config.databaseUrl, { traced: config.tracing !== undefined });
const roster = await createRoster({ config, db });
if (config.tracing) await startTracing(config.tracing, roster.logger);
createServer(roster.express).listen(config.port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGINT', () => process.exit(0)); // lets --cpu-prof write its profile
