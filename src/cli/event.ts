import { Option, type Command } from 'commander';
import { EVENT_FIELDS, eventFieldsJson, type EventFieldSpec } from '../lib/event-fields.js';
import type { EventFieldInput, NewEventFieldInput } from '../services/event-fields.js';
import type { EventDetail } from '../services/event-service.js';
import type { EventRow } from '../stores/types.js';
import { CliError, collect, type Run } from './runtime.js';
import { fields, nextCursor, pageText, table } from './table.js';

/** An event's own fields as the CLI prints them (lists leave out the organizers). */
const eventFields = (e: EventRow) => ({ slug: e.slug, ...eventFieldsJson(e) });

export const eventJson = (e: EventRow, organizers: string[]) => ({ ...eventFields(e), organizers });

const detailJson = (d: EventDetail) => ({
  ...eventJson(
    d.event,
    d.organizers.map((u) => u.uid),
  ),
  registrations: d.registrations,
});

type Options = Record<string, string | boolean | string[] | undefined>;

const FIELDS = EVENT_FIELDS as readonly EventFieldSpec[];
const REQUIRED = FIELDS.filter((f) => f.required);
const OPTIONAL = FIELDS.filter((f) => !f.required);

/** Adds the options of `fields`, in order: a value option each (on update, its --no- form too), a visibility switches. */
function fieldOptions(command: Command, fields: readonly EventFieldSpec[], mode: 'create' | 'update'): void {
  for (const f of fields) {
    if (f.kind === 'visibility') {
      if (mode === 'update') command.option('--public', 'anyone may see it');
      command.option('--private', 'only organizers may see it');
    } else if (f.cli) {
      const option = new Option(f.cli.flag, f.cli.help);
      command.addOption(mode === 'create' && f.required ? option.makeOptionMandatory() : option);
      if (mode === 'update' && f.cli.clear) command.option(`--no-${option.name()}`, f.cli.clear);
    }
  }
}

/** The fields' values as the options give them: a --no- form (false) is null, clearing the value. */
function fieldValues(opts: Options): EventFieldInput {
  const values: Record<string, string | null | undefined> = {};
  for (const f of FIELDS) {
    if (f.kind === 'visibility') {
      if (opts.public && opts.private) throw new CliError('give --public or --private, not both');
      values[f.prop] = opts.private ? 'private' : opts.public ? 'public' : undefined;
    } else if (f.cli) {
      const value = opts[new Option(f.cli.flag).attributeName()];
      values[f.prop] = value === false ? null : (value as string | undefined);
    }
  }
  return values;
}

interface EventUpdateOptions extends Options {
  json?: boolean;
  event: string;
  addOrganizer: string[];
  removeOrganizer: string[];
}

interface EventCreateOptions extends Options {
  json?: boolean;
  slug: string;
  organizer: string[];
}

export function registerEvent(program: Command, run: Run): void {
  const event = program.command('event').description('manage events');
  const create = event
    .command('create')
    .description('create an event')
    .requiredOption('--slug <slug>', 'unique slug: lowercase letters, digits, hyphens');
  // The required fields (the name), then the organizers, then the optional fields: the order --help lists.
  fieldOptions(create, REQUIRED, 'create');
  create.requiredOption('--organizer <user>', 'organizer (email or uid); repeat for several', collect, []);
  fieldOptions(create, OPTIONAL, 'create');
  create.option('--json', 'print one JSON object').action((opts: EventCreateOptions) =>
    run(
      opts,
      async ({ services }) => {
        const { event: created, organizers } = await services.events.create({
          ...(fieldValues(opts) as NewEventFieldInput),
          slug: opts.slug,
          organizers: opts.organizer,
        });
        const uids = organizers.map((u) => u.uid);
        return { json: eventJson(created, uids), human: `created event ${created.slug}` };
      },
      { write: { action: 'event.created', subject: opts.slug } },
    ),
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
  const update = event
    .command('update')
    .description("change an event's fields and organizers (it keeps at least one organizer)")
    .requiredOption('--event <slug>', 'event slug (the key: not changeable)');
  fieldOptions(update, FIELDS, 'update');
  update
    .option('--add-organizer <user>', 'add an organizer (email or uid); repeat for several', collect, [])
    .option('--remove-organizer <user>', 'remove an organizer (email or uid); repeat for several', collect, [])
    .option('--json', 'print one JSON object')
    .action((opts: EventUpdateOptions) =>
      run(
        opts,
        async ({ services }) => {
          const detail = await services.events.update(opts.event, {
            ...fieldValues(opts),
            addOrganizers: opts.addOrganizer,
            removeOrganizers: opts.removeOrganizer,
          });
          return { json: detailJson(detail), human: `updated event ${detail.event.slug}` };
        },
        { write: { action: 'event.updated', subject: opts.event } },
      ),
    );
  event
    .command('delete')
    .description('delete an event with its registrations and organizer links')
    .requiredOption('--event <slug>', 'event slug')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean; event: string }) =>
      run(
        opts,
        async ({ services }) => {
          const d = await services.events.delete(opts.event);
          const json = {
            deleted: d.event.slug,
            registrations: d.registrations,
            organizers: d.organizers.map((u) => u.uid),
          };
          return { json, human: `deleted event ${d.event.slug} with ${d.registrations} registration(s)` };
        },
        { write: { action: 'event.deleted', subject: opts.event } },
      ),
    );
}
