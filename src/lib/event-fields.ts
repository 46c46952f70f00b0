// In src/lib so that every layer reads this one table, the store included (stores may import only src/lib).

export type Visibility = 'public' | 'private';

/** What a field of each kind holds in an EventRow: a primitive, so `===` says whether a value changed. */
export interface FieldKinds {
  /** One line of printable text: trimmed, 1 to `max` characters (services/validation.ts `text`). */
  text: string;
  /** An instant as epoch milliseconds; ISO 8601 in JSON, on the command line and as a GraphQL DateTime. */
  time: number;
  /** An IANA time zone name. */
  timeZone: string;
  /** Who may see the event: a pair of switches on the command line, an enum in GraphQL. */
  visibility: Visibility;
}
export type FieldKind = keyof FieldKinds;

export interface EventFieldSpec {
  /** The property in EventRow and in the services' inputs. */
  readonly prop: string;
  /** The column of the `events` table. */
  readonly column: string;
  /** The key in NDJSON records and in the CLI's --json output; an InvalidInput names the field by it. */
  readonly key: string;
  readonly kind: FieldKind;
  /** For text: the most characters accepted. */
  readonly max?: number;
  /** A new event must give it, and it is never null. */
  readonly required?: true;
  /** It may be null (unset): what a new event has unless given; null (or the CLI's --no- form) clears it. */
  readonly nullable?: true;
  /** What a new event has unless given, for a field neither required nor nullable. */
  readonly initial?: FieldKinds[FieldKind];
  /** `event create` and `event update` take `--flag <value>`; `clear` is the help of update's --no- form. */
  readonly cli?: { readonly flag: string; readonly help: string; readonly clear?: string };
  /** The field of the GraphQL Event type that shows it (schema.graphql declares it). */
  readonly graphql?: string;
}

/**
 * An event's editable scalar fields, in the order the CLI lists and prints them; the slug (the key) and the
 * organizers (users) are apart. Each layer gives a `kind` its meaning: the store its column (stores/rows.ts), the
 * services its check (services/event-fields.ts), the CLI its option, GraphQL its value (graphql/resolvers/Event.ts).
 */
export const EVENT_FIELDS = [
  {
    prop: 'name',
    column: 'name',
    key: 'name',
    kind: 'text',
    max: 500,
    required: true,
    cli: { flag: '--name <name>', help: 'event name' },
    graphql: 'name',
  },
  {
    prop: 'visibility',
    column: 'visibility',
    key: 'visibility',
    kind: 'visibility',
    initial: 'public',
    graphql: 'visibility',
  },
  {
    prop: 'startsAt',
    column: 'starts_at',
    key: 'starts_at',
    kind: 'time',
    nullable: true,
    cli: { flag: '--starts-at <iso>', help: 'start, ISO 8601', clear: 'clear the start' },
    graphql: 'startsAt',
  },
  {
    prop: 'endsAt',
    column: 'ends_at',
    key: 'ends_at',
    kind: 'time',
    nullable: true,
    cli: { flag: '--ends-at <iso>', help: 'end, ISO 8601', clear: 'clear the end' },
    graphql: 'endsAt',
  },
  {
    prop: 'timeZone',
    column: 'time_zone',
    key: 'time_zone',
    kind: 'timeZone',
    nullable: true,
    cli: { flag: '--time-zone <tz>', help: 'IANA time zone', clear: 'clear the time zone' },
    graphql: 'timeZone',
  },
  {
    prop: 'location',
    column: 'location',
    key: 'location',
    kind: 'text',
    max: 200,
    nullable: true,
    cli: {
      flag: '--location <text>',
      help: 'where it takes place, e.g. "Hall B, Berlin"',
      clear: 'clear the location',
    },
    graphql: 'location',
  },
] as const satisfies readonly EventFieldSpec[];

export type EventField = (typeof EVENT_FIELDS)[number];
/** `null` for a nullable field, else nothing. */
export type NullIf<F extends EventField> = F extends { nullable: true } ? null : never;
type ValueOf<F extends EventField> = FieldKinds[F['kind']] | NullIf<F>;
type RequiredField = Extract<EventField, { required: true }>;

/** Every field's value, as an EventRow holds them. */
export type EventFieldValues = { [F in EventField as F['prop']]: ValueOf<F> };

/** A new event's values for the fields it does not give. */
export type EventInitialValues = Omit<EventFieldValues, RequiredField['prop']>;
/** A new event's values: the required fields (the name), and any of the others. */
export type NewEventValues = Partial<EventFieldValues> & Omit<EventFieldValues, keyof EventInitialValues>;

export const EVENT_INITIAL = Object.fromEntries(
  (EVENT_FIELDS as readonly EventFieldSpec[])
    .filter((f) => !f.required)
    .map((f) => [f.prop, f.nullable ? null : f.initial]),
) as EventInitialValues;

/** The table's fields that `e` gives (undefined: not given), and nothing else of it. */
export function givenEventFields<T extends Partial<EventFieldValues>>(e: T): Pick<T, keyof EventFieldValues> {
  const given: Record<string, unknown> = {};
  for (const f of EVENT_FIELDS) if (e[f.prop] !== undefined) given[f.prop] = e[f.prop];
  return given;
}

/** The first field a new event must give that `e` leaves out, if any. */
export const missingEventField = (e: Partial<EventFieldValues>): EventFieldSpec | undefined =>
  (EVENT_FIELDS as readonly EventFieldSpec[]).find(
    (f) => f.required && e[f.prop as keyof EventFieldValues] === undefined,
  );

const toJson: { [K in FieldKind]: (value: FieldKinds[K]) => string } = {
  text: (s) => s,
  time: (ms) => new Date(ms).toISOString(),
  timeZone: (s) => s,
  visibility: (v) => v,
};

/** Every field by its key, as NDJSON records and the CLI's --json carry it (null when unset). */
export type EventFieldsJson = { [F in EventField as F['key']]: string | NullIf<F> };

export function eventFieldsJson(e: EventFieldValues): EventFieldsJson {
  const json: Record<string, string | null> = {};
  for (const f of EVENT_FIELDS as readonly EventFieldSpec[]) {
    const value = e[f.prop as keyof EventFieldValues];
    json[f.key] = value === null ? null : (toJson[f.kind] as (v: unknown) => string)(value);
  }
  return json as EventFieldsJson;
}
