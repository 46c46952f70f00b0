import type { Command } from 'commander';
import { DEMO, seedDemo } from '../services/demo-seed.js';
import type { Run } from './runtime.js';

export function registerSeed(program: Command, run: Run): void {
  program
    .command('seed')
    .description('load the demo data (idempotent)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(
        opts,
        async ({ services }) => {
          const seeded = await seedDemo(services);
          const json = {
            ...seeded.counts,
            organizer: DEMO.organizerEmail,
            password: DEMO.password,
            ...(seeded.app
              ? {
                  client_id: seeded.app.clientId,
                  client_secret: seeded.app.clientSecret,
                  app_token: seeded.app.appToken,
                }
              : {}),
          };
          const { users, events, registrations } = seeded.counts;
          // The demo app's secret and token exist only on the run that makes them: printed for people too.
          const human = seeded.app
            ? [
                `demo data loaded: ${users} users, ${events} events, ${registrations} registrations`,
                `organizer: ${DEMO.organizerEmail} (password ${DEMO.password})`,
                `demo app ${seeded.app.clientId}`,
                `client secret (shown once): ${seeded.app.clientSecret}`,
                `app token (shown once): ${seeded.app.appToken}`,
              ].join('\n')
            : `demo data already loaded (organizer ${DEMO.organizerEmail}, password ${DEMO.password})`;
          return { json, human };
        },
        { write: { action: 'data.seeded' } },
      ),
    );
}
