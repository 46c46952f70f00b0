import type { Command } from 'commander';
import { globalId } from '../lib/ids.js';
import type { Run } from './runtime.js';

export function registerRegistration(program: Command, run: Run): void {
  const registration = program.command('registration').description('manage registrations');
  registration
    .command('create')
    .description('register a user for an event')
    .requiredOption('--event <slug>', 'event slug')
    .requiredOption('--user <user>', 'registrant (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string; user: string }) =>
      run(opts, async ({ services }) => {
        const { registration: created, event, user } = await services.registrations.create(opts.event, opts.user);
        const json = {
          id: globalId('Registration', created.id),
          event: event.slug,
          user: user.uid,
          created_at: new Date(created.createdAt).toISOString(),
        };
        return { json, human: `registered ${user.uid} for ${event.slug}` };
      }),
    );
}
