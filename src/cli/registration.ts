import type { Command } from 'commander';
import { globalId } from '../lib/ids.js';
import type { Run } from './runtime.js';
import { nextCursor, pageText, table } from './table.js';

export function registerRegistration(program: Command, run: Run): void {
  const registration = program.command('registration').description('manage registrations');
  registration
    .command('create')
    .description('register a user for an event')
    .requiredOption('--event <slug>', 'event slug')
    .requiredOption('--user <user>', 'registrant (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string; user: string }) =>
      run(
        opts,
        async ({ services }) => {
          const { registration: created, event, user } = await services.registrations.create(opts.event, opts.user);
          const json = {
            id: globalId('Registration', created.id),
            event: event.slug,
            user: user.uid,
            created_at: new Date(created.createdAt).toISOString(),
          };
          return { json, human: `registered ${user.uid} for ${event.slug}` };
        },
        { write: { action: 'registration.created', subject: `${opts.user} ${opts.event}` } },
      ),
    );
  registration
    .command('list')
    .description("list an event's registrations in the order they were made, a page at a time")
    .requiredOption('--event <slug>', 'event slug')
    .option('--limit <n>', 'registrations per page (1-1000)', '50')
    .option('--after <cursor>', "the page after this cursor (the previous page's 'next')")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string; limit: string; after?: string }) =>
      run(opts, async ({ services }) => {
        const page = await services.registrations.list(opts.event, opts);
        const next = nextCursor(page);
        const registrations = page.rows.map((r) => ({
          id: globalId('Registration', r.id),
          user: r.registrant.uid,
          email: r.registrant.email,
          name: r.registrant.name,
          created_at: new Date(r.createdAt).toISOString(),
        }));
        const rows = registrations.map((r) => [r.user, r.email, r.name, r.created_at]);
        const human = pageText(table(['USER', 'EMAIL', 'NAME', 'REGISTERED'], rows), rows.length, next);
        return { json: { event: page.event.slug, registrations, next }, human };
      }),
    );
  registration
    .command('delete')
    .description('unregister a user from an event')
    .requiredOption('--event <slug>', 'event slug')
    .requiredOption('--user <user>', 'registrant (email or uid)')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string; user: string }) =>
      run(
        opts,
        async ({ services }) => {
          const { event, user } = await services.registrations.delete(opts.event, opts.user);
          return {
            json: { deleted: true, event: event.slug, user: user.uid },
            human: `unregistered ${user.uid} from ${event.slug}`,
          };
        },
        { write: { action: 'registration.deleted', subject: `${opts.user} ${opts.event}` } },
      ),
    );
}
