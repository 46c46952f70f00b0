import { ForbiddenError } from '../errors.js';
import type { Event as EventType, EventResolvers } from '../../generated/graphql.js';
import { EVENT_FIELDS, type EventFieldSpec, type FieldKind, type FieldKinds } from '../../lib/event-fields.js';
import { globalId } from '../../lib/ids.js';
import type { EventRow } from '../../stores/types.js';
import { pageRequest } from '../pagination.js';

/** How each kind of field shows in the schema: a time as a DateTime, a visibility as the enum, text as stored. */
const shown: { [K in FieldKind]: (value: FieldKinds[K]) => unknown } = {
  text: (s) => s,
  time: (ms) => new Date(ms),
  timeZone: (s) => s,
  visibility: (v) => (v === 'private' ? 'PRIVATE' : 'PUBLIC'),
};

// Each field of the table names a field of the schema's Event type: a typo fails to compile.
const _shownInSchema: (keyof EventType)[] = EVENT_FIELDS.map((f) => f.graphql);

/** A resolver for each field of lib/event-fields.ts that GraphQL shows. */
const fieldResolvers = Object.fromEntries(
  (EVENT_FIELDS as readonly EventFieldSpec[]).flatMap((f) => {
    if (f.graphql === undefined) return [];
    const show = shown[f.kind] as (value: unknown) => unknown;
    const resolve = (event: EventRow) => {
      const value = event[f.prop as keyof EventRow];
      return value === null ? null : show(value);
    };
    return [[f.graphql, resolve]];
  }),
) as EventResolvers;

export const Event: EventResolvers = {
  id: (event) => globalId('Event', event.id),
  ...fieldResolvers,
  async registrations(event, args, { access, services, cost, info, epochRead }) {
    const readable = await access.registrations(event.id);
    if (!readable) {
      throw new ForbiddenError('Only the organizers of this event may read its registrations.');
    }
    const { size, ...range } = pageRequest(args, 'registrations');
    const page = await services.registrations.window(event.id, size, range, epochRead);
    // A forward page with more after it never shows a registration added past its last row.
    const last = page.rows.at(-1);
    info.reads?.readEvent(event.id, !range.backward && page.hasNextPage && last ? last.id : Infinity);
    cost.nodes += page.rows.length;
    return { eventId: event.id, page, showEmail: readable.showEmail };
  },
};
