import type { Command } from 'commander';
import type { EventDetail } from '../services/event-service.js';
import type { EventRow } from '../stores/types.js';
import { CliError, collect, type Run } from './runtime.js';
import { fields, isoOrNull as iso, nextCursor, pageText, table } from './table.js';

/** An event's own fields as the CLI prints them (lists leave out the organizers). */
const eventFields = (e: EventRow) => ({
  slug: e.slug,
  name: e.name,
  visibility: e.visibility,
  starts_at: iso(e.startsAt),
  ends_at: iso(e.endsAt),
  time_zone: e.timeZone,
});

export const eventJson = (e: EventRow, organizers: string[]) => ({ ...eventFields(e), organizers });

const detailJson = (d: EventDetail) => ({
  ...eventJson(
    d.event,
    d.organizers.map((u) => u.uid),
  ),
  registrations: d.registrations,
});

interface EventUpdateOptions {
  json?: boolean;
  event: string;
  name?: string;
  public?: boolean;
  private?: boolean;
  startsAt?: string | false;
  endsAt?: string | false;
  timeZone?: string | false;
  addOrganizer: string[];
  removeOrganizer: string[];
}

/** An option that may be cleared with its --no- form: false is null, absent is undefined. */
const clearable = (value: string | false | undefined) => (value === false ? null : value);

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
  event
    .command('list')
    .description('list events in creation order, a page at a time')
    .option('--organizer <user>', 'only events this user organizes (email or uid)')
    .option('--limit <n>', 'events per page (1-1000)', '50')
    .option('--after <cursor>', "the page after this cursor (the previous page's 'next')")
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; organizer?: string; limit: string; after?: string }) =>
      run(opts, async ({ services }) => {
        const page = await services.events.list(opts, opts.organizer);
        const next = nextCursor(page);
        const json = page.rows.map(eventFields);
        const rows = json.map((e) => [e.slug, e.name, e.visibility, e.starts_at]);
        const human = pageText(table(['SLUG', 'NAME', 'VISIBILITY', 'STARTS'], rows), rows.length, next);
        return { json: { events: json, next }, human };
      }),
    );
  event
    .command('show')
    .description('show an event with its organizers and registration count')
    .requiredOption('--event <slug>', 'event slug')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string }) =>
      run(opts, async ({ services }) => {
        const json = detailJson(await services.events.show(opts.event));
        return { json, human: fields(json) };
      }),
    );
  event
    .command('update')
    .description("change an event's fields and organizers (it keeps at least one organizer)")
    .requiredOption('--event <slug>', 'event slug (the key: not changeable)')
    .option('--name <name>', 'event name')
    .option('--public', 'anyone may see it')
    .option('--private', 'only organizers may see it')
    .option('--starts-at <iso>', 'start, ISO 8601')
    .option('--no-starts-at', 'clear the start')
    .option('--ends-at <iso>', 'end, ISO 8601')
    .option('--no-ends-at', 'clear the end')
    .option('--time-zone <tz>', 'IANA time zone')
    .option('--no-time-zone', 'clear the time zone')
    .option('--add-organizer <user>', 'add an organizer (email or uid); repeat for several', collect, [])
    .option('--remove-organizer <user>', 'remove an organizer (email or uid); repeat for several', collect, [])
    .option('--json', 'print one JSON object')
    .action((opts: EventUpdateOptions) =>
      run(opts, async ({ services }) => {
        if (opts.public && opts.private) throw new CliError('give --public or --private, not both');
        const detail = await services.events.update(opts.event, {
          name: opts.name,
          visibility: opts.private ? 'private' : opts.public ? 'public' : undefined,
          startsAt: clearable(opts.startsAt),
          endsAt: clearable(opts.endsAt),
          timeZone: clearable(opts.timeZone),
          addOrganizers: opts.addOrganizer,
          removeOrganizers: opts.removeOrganizer,
        });
        return { json: detailJson(detail), human: `updated event ${detail.event.slug}` };
      }),
    );
  event
    .command('delete')
    .description('delete an event with its registrations and organizer links')
    .requiredOption('--event <slug>', 'event slug')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string }) =>
      run(opts, async ({ services }) => {
        const d = await services.events.delete(opts.event);
        const json = {
          deleted: d.event.slug,
          registrations: d.registrations,
          organizers: d.organizers.map((u) => u.uid),
        };
        return { json, human: `deleted event ${d.event.slug} with ${d.registrations} registration(s)` };
      }),
    );
}
