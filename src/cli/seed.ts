import type { Command } from 'commander';
import { DEMO, seedDemo } from '../services/demo-seed.js';
import type { Run } from './runtime.js';

export function registerSeed(program: Command, run: Run): void {
  program
    .command('seed')
    .description('load the demo data (idempotent)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(opts, async ({ services }) => {
        const seeded = await seedDemo(services);
        const json = {
          ...seeded.counts,
          organizer: DEMO.organizerEmail,
          password: DEMO.password,
          ...(seeded.app
            ? { client_id: seeded.app.clientId, client_secret: seeded.app.clientSecret, app_token: seeded.app.appToken }
            : {}),
        };
        const human = seeded.app
          ? `demo data loaded; app ${seeded.app.clientId} token (shown once): ${seeded.app.appToken}`
          : 'demo data already loaded';
        return { json, human };
      }),
    );
}
