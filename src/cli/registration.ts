import type { Command } from 'commander';
import { globalId } from '../lib/ids.js';
import * as v from '../services/validation.js';
import { CliError, requireUser, type Run } from './runtime.js';

export function registerRegistration(program: Command, run: Run): void {
  const registration = program.command('registration').description('manage registrations');
  registration
    .command('create')
    .description('register a user for an event')
    .requiredOption('--event <slug>', 'event slug')
    .requiredOption('--user <user>', 'registrant (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string; user: string }) =>
      run(opts, async ({ stores }) => {
        const slug = v.slug(opts.event, '--event');
        const event = await stores.events.findBySlug(slug);
        if (!event) throw new CliError(`no event with slug ${slug}`);
        const user = await requireUser(stores, opts.user);
        if (await stores.registrations.find(event.id, user.id)) {
          throw new CliError(`${opts.user} is already registered for ${slug}`);
        }
        const created = await stores.registrations.create(event.id, user.id);
        const json = {
          id: globalId('Registration', created.id),
          event: slug,
          user: user.uid,
          created_at: new Date(created.createdAt).toISOString(),
        };
        return { json, human: `registered ${user.uid} for ${slug}` };
      }),
    );
}
