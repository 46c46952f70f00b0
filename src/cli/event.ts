import type { Command } from 'commander';
import type { EventRow } from '../stores/types.js';
import { collect, type Run } from './runtime.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const eventJson = (e: EventRow, organizers: string[]) => ({
  slug: e.slug,
  name: e.name,
  visibility: e.visibility,
  starts_at: iso(e.startsAt),
  ends_at: iso(e.endsAt),
  time_zone: e.timeZone,
  organizers,
});

interface EventCreateOptions {
  json?: boolean;
  slug: string;
  name: string;
  organizer: string[];
  private?: boolean;
  startsAt?: string;
  endsAt?: string;
  timeZone?: string;
}

export function registerEvent(program: Command, run: Run): void {
  const event = program.command('event').description('manage events');
  event
    .command('create')
    .description('create an event')
    .requiredOption('--slug <slug>', 'unique slug: lowercase letters, digits, hyphens')
    .requiredOption('--name <name>', 'event name')
    .requiredOption('--organizer <user>', 'organizer (email or uid); repeat for several', collect, [])
    .option('--private', 'only organizers may see it')
    .option('--starts-at <iso>', 'start, ISO 8601')
    .option('--ends-at <iso>', 'end, ISO 8601')
    .option('--time-zone <tz>', 'IANA time zone')
    .option('--json', 'print one JSON object')
    .action((opts: EventCreateOptions) =>
      run(opts, async ({ services }) => {
        const { event: created, organizers } = await services.events.create({
          slug: opts.slug,
          name: opts.name,
          organizers: opts.organizer,
          visibility: opts.private ? 'private' : 'public',
          startsAt: opts.startsAt,
          endsAt: opts.endsAt,
          timeZone: opts.timeZone,
        });
        const uids = organizers.map((u) => u.uid);
        return { json: eventJson(created, uids), human: `created event ${created.slug}` };
      }),
    );
}
