import { EVENT_FIELDS, type EventFieldValues, type FieldKind, type FieldKinds } from '../lib/event-fields.js';
import type {
  ActivationState,
  ClientAppRow,
  EventRow,
  EventWithOrganizers,
  RegistrationRow,
  RegistrationWithRegistrant,
  UserRow,
} from './types.js';

// Maps database rows (snake_case; SQLite booleans as 0/1) to the row types.
type Raw = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function toUser(r: Raw): UserRow {
  return {
    id: num(r.id),
    uid: String(r.uid),
    email: strOrNull(r.email),
    emailVerified: Boolean(r.email_verified),
    name: String(r.name),
    picture: strOrNull(r.picture),
    zoneinfo: strOrNull(r.zoneinfo),
    passwordHash: strOrNull(r.password_hash),
    activationState: r.activation_state as ActivationState,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** A column's value by the kind of field it stores (PostgreSQL gives a BIGINT as a string). */
const fromColumn: { [K in FieldKind]: (v: unknown) => FieldKinds[K] } = {
  text: String,
  time: num,
  timeZone: String,
  visibility: (v) => v as FieldKinds['visibility'],
};

export function toEvent(r: Raw): EventRow {
  const fields: Record<string, unknown> = {};
  for (const f of EVENT_FIELDS) {
    const v = r[f.column];
    fields[f.prop] = v === null || v === undefined ? null : fromColumn[f.kind](v);
  }
  return {
    id: num(r.id),
    slug: String(r.slug),
    ...(fields as EventFieldValues),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** An event row with `organizer_ids`, its organizers' ids joined by commas (null for none). */
export function toEventWithOrganizers(r: Raw): EventWithOrganizers {
  const ids = r.organizer_ids;
  return { ...toEvent(r), organizerIds: ids === null || ids === undefined ? [] : String(ids).split(',').map(Number) };
}

export function toRegistration(r: Raw): RegistrationRow {
  return { id: num(r.id), eventId: num(r.event_id), userId: num(r.user_id), createdAt: num(r.created_at) };
}

/** A page row: the registration's columns, then its user's as `user_*`. */
export function toRegistrationWithRegistrant(r: Raw): RegistrationWithRegistrant {
  return {
    ...toRegistration(r),
    registrant: {
      id: num(r.user_id),
      uid: String(r.user_uid),
      name: String(r.user_name),
      email: strOrNull(r.user_email),
      activationState: r.user_activation_state as ActivationState,
    },
  };
}

export function toClientApp(r: Raw): ClientAppRow {
  return {
    id: num(r.id),
    clientId: String(r.client_id),
    ownerId: num(r.owner_id),
    name: String(r.name),
    redirectUris: JSON.parse(String(r.redirect_uris)) as string[],
    clientSecretHash: strOrNull(r.client_secret_hash),
    grantTypes: JSON.parse(String(r.grant_types)) as string[],
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}
