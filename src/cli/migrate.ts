import type { Command } from 'commander';
import { migrate } from '../stores/database.js';
import type { Run } from './runtime.js';

export function registerMigrate(program: Command, run: Run): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(
        opts,
        async ({ db }) => {
          const migrated = await migrate(db);
          const audit = { subject: migrated.length ? `${migrated.length} migration(s)` : 'up to date' };
          return {
            json: { migrated },
            audit,
            human: migrated.length ? `applied ${migrated.join(', ')}` : 'up to date',
          };
        },
        { migrateFirst: false, write: { action: 'database.migrated', transaction: false } },
      ),
    );
}
