import {
  EVENT_FIELDS,
  type EventField,
  type EventFieldSpec,
  type EventFieldValues,
  type FieldKind,
  type FieldKinds,
  type NewEventValues,
  type NullIf,
} from '../lib/event-fields.js';
import * as v from './validation.js';

// The checks of lib/event-fields.ts's fields, by kind: what the services and the importer accept.

const check: { [K in FieldKind]: (value: unknown, f: EventFieldSpec) => FieldKinds[K] } = {
  text: (x, f) => v.text(x, f.key, f.max),
  time: (x, f) => v.isoTime(x, f.key),
  timeZone: (x, f) => v.timeZone(x, f.key),
  visibility: (x) => v.visibility(x),
};

/** The fields as an operator gives them (text; times ISO 8601): absent keeps a value, null clears a nullable one. */
export type EventFieldInput = { [F in EventField as F['prop']]?: string | NullIf<F> };

/** A new event's fields as an operator gives them: the required ones (the name) must be there. */
export type NewEventFieldInput = EventFieldInput & {
  [F in Extract<EventField, { required: true }> as F['prop']]: string;
};

/**
 * The fields of `source`, named by `by` (`prop`: a service's input; `key`: an NDJSON record), checked: undefined is
 * left out (the stored value stays, or a new event gets its initial one), null clears a nullable field, anything
 * else must pass its kind's check. With `create`, a required field left out is refused as a missing value is.
 */
export function checkEventFields(source: object, by: 'prop' | 'key', opts: { create: true }): NewEventValues;
export function checkEventFields(source: object, by: 'prop' | 'key'): Partial<EventFieldValues>;
export function checkEventFields(
  source: object,
  by: 'prop' | 'key',
  { create = false } = {},
): Partial<EventFieldValues> {
  const checked: Record<string, unknown> = {};
  for (const f of EVENT_FIELDS as readonly EventFieldSpec[]) {
    const value = (source as Record<string, unknown>)[f[by]];
    if (value === undefined && !(create && f.required)) continue;
    checked[f.prop] = value === null && f.nullable ? null : check[f.kind](value, f);
  }
  return checked;
}
