// Roster as shipped: the `npm start` app on SQLite (no demo seed), on PORT.
import { createServer } from 'node:http';
import { createApp } from '../../dist/app.js';
import { loadConfig } from '../../dist/config.js';
import { createDb } from '../../dist/stores/knex.js';

// The rate limit stays on (every check runs) with a budget the benchmark cannot exhaust.
const config = loadConfig(
  { RATE_LIMIT_POINTS: '1000000000', ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent' },
  false,
);
const db = createDb(config.databaseUrl);
const { app } = await createApp({ config, db });
createServer(app).listen(config.port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGINT', () => process.exit(0)); // lets --cpu-prof write its profile
