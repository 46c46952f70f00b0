import type { EventFields } from '../../stores/event-store.js';
import type { UserFields } from '../../stores/user-store.js';
import { EVENT_FIELDS } from '../../lib/event-fields.js';
import { InvalidInput } from '../errors.js';
import { checkEventFields } from '../event-fields.js';
import * as v from '../validation.js';
import { quoted } from '../../lib/text.js';

// One NDJSON line → a validated record, or a one-line reason. A field left out is `undefined` (keep the
// stored value), an explicit null clears it; what a new user or event must carry is checked when it is written.

export type ImportRecord =
  | { type: 'user'; line: number; user: UserFields }
  | { type: 'event'; line: number; event: EventFields; organizers?: string[] }
  | { type: 'registration'; line: number; event: string; user: string };

const USER_FIELDS = new Set([
  'type',
  'uid',
  'email',
  'name',
  'email_verified',
  'picture',
  'zoneinfo',
  'activation_state',
]);
const EVENT_KEYS = new Set(['type', 'slug', 'organizers', ...EVENT_FIELDS.map((f) => f.key)]);
const REGISTRATION_FIELDS = new Set(['type', 'event', 'user']);

function only(obj: Record<string, unknown>, allowed: Set<string>): void {
  const extra = Object.keys(obj).find((k) => !allowed.has(k));
  // The name is the file's: quoted printable and cut short, never echoed raw.
  if (extra !== undefined) throw new InvalidInput(`unknown field ${quoted(extra)}`);
}

/** `undefined` when absent (leave as stored), null when explicitly null (clear), else checked. */
function optional<T>(value: unknown, check: (x: unknown) => T): T | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  return check(value);
}

function parseUser(o: Record<string, unknown>): UserFields {
  only(o, USER_FIELDS);
  const user: UserFields = {
    name: o.name === undefined ? undefined : v.text(o.name, 'name'),
    uid: o.uid === undefined ? undefined : v.uid(o.uid),
    email: optional(o.email, (x) => v.email(x)),
    emailVerified: o.email_verified === undefined ? undefined : v.boolean(o.email_verified, 'email_verified'),
    picture: optional(o.picture, (x) => v.httpUrl(x, 'picture')),
    zoneinfo: optional(o.zoneinfo, (x) => v.timeZone(x, 'zoneinfo')),
    activationState: o.activation_state === undefined ? undefined : v.activationState(o.activation_state),
  };
  if (!user.uid && !user.email) throw new InvalidInput('a user needs an email or a uid');
  return user;
}

function parseEvent(o: Record<string, unknown>): { event: EventFields; organizers?: string[] } {
  only(o, EVENT_KEYS);
  if (o.organizers !== undefined && (!Array.isArray(o.organizers) || o.organizers.length === 0)) {
    throw new InvalidInput('must be a non-empty list of users (email or uid)', 'organizers');
  }
  const event: EventFields = { slug: v.slug(o.slug), ...checkEventFields(o, 'key') };
  v.timeRange(event.startsAt ?? null, event.endsAt ?? null);
  return { event, organizers: o.organizers?.map((u) => v.userKey(u, 'organizer')) };
}

export function parseRecord(text: string, line: number): ImportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidInput('not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInput('a record must be a JSON object');
  }
  const o = value as Record<string, unknown>;
  switch (o.type) {
    case 'user':
      return { type: 'user', line, user: parseUser(o) };
    case 'event':
      return { type: 'event', line, ...parseEvent(o) };
    case 'registration':
      only(o, REGISTRATION_FIELDS);
      return { type: 'registration', line, event: v.slug(o.event, 'event'), user: v.userKey(o.user) };
    default:
      throw new InvalidInput('type must be "user", "event" or "registration"');
  }
}
