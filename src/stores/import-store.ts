import type { Knex } from 'knex';
import { newUid } from '../lib/ids.js';
import { toEvent, toUser } from './rows.js';
import type { ActivationState, EventRow, UserRow, Visibility } from './types.js';

// Batched reads and writes for `roster import` (and event creation), inside the caller's transaction.

export interface UserFields {
  uid?: string;
  email?: string | null;
  emailVerified?: boolean;
  name: string;
  picture?: string | null;
  zoneinfo?: string | null;
  activationState?: ActivationState;
}

export interface EventFields {
  slug: string;
  name: string;
  startsAt?: number | null;
  endsAt?: number | null;
  timeZone?: string | null;
  visibility?: Visibility;
}

const CHUNK = 400;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Users named by uid or email, keyed by the same strings (emails lower-cased). */
export async function usersByKeys(trx: Knex, keys: readonly string[]): Promise<Map<string, UserRow>> {
  const found = new Map<string, UserRow>();
  const emails = [...new Set(keys.filter((k) => k.includes('@')).map((k) => k.toLowerCase()))];
  const uids = [...new Set(keys.filter((k) => !k.includes('@')))];
  for (const part of chunks(emails)) {
    for (const r of await trx('users').whereIn('email_normalized', part))
      found.set(String(r.email_normalized), toUser(r));
  }
  for (const part of chunks(uids)) {
    for (const r of await trx('users').whereIn('uid', part)) found.set(String(r.uid), toUser(r));
  }
  return found;
}

const userColumns = (u: UserFields) => ({
  ...(u.email !== undefined ? { email: u.email, email_normalized: u.email?.toLowerCase() ?? null } : {}),
  ...(u.emailVerified !== undefined ? { email_verified: u.emailVerified } : {}),
  name: u.name,
  ...(u.picture !== undefined ? { picture: u.picture } : {}),
  ...(u.zoneinfo !== undefined ? { zoneinfo: u.zoneinfo } : {}),
  ...(u.activationState !== undefined ? { activation_state: u.activationState } : {}),
});

export async function insertUsers(trx: Knex, users: readonly UserFields[], now: number): Promise<void> {
  for (const part of chunks(users)) {
    await trx('users').insert(
      part.map((u) => ({
        email: null,
        email_normalized: null,
        email_verified: false,
        picture: null,
        zoneinfo: null,
        activation_state: 'active',
        ...userColumns(u),
        uid: u.uid ?? newUid(),
        created_at: now,
        updated_at: now,
      })),
    );
  }
}

/** True when applying `u` would change the stored user. */
export function userDiffers(row: UserRow, u: UserFields): boolean {
  return (
    row.name !== u.name ||
    (u.email !== undefined && row.email !== u.email) ||
    (u.emailVerified !== undefined && row.emailVerified !== u.emailVerified) ||
    (u.picture !== undefined && row.picture !== u.picture) ||
    (u.zoneinfo !== undefined && row.zoneinfo !== u.zoneinfo) ||
    (u.activationState !== undefined && row.activationState !== u.activationState)
  );
}

export async function updateUser(trx: Knex, id: number, u: UserFields, now: number): Promise<void> {
  await trx('users')
    .where({ id })
    .update({ ...userColumns(u), updated_at: now });
}

export async function eventsBySlugs(trx: Knex, slugs: readonly string[]): Promise<Map<string, EventRow>> {
  const found = new Map<string, EventRow>();
  for (const part of chunks([...new Set(slugs)])) {
    for (const r of await trx('events').whereIn('slug', part)) found.set(String(r.slug), toEvent(r));
  }
  return found;
}

const eventColumns = (e: EventFields) => ({
  name: e.name,
  ...(e.startsAt !== undefined ? { starts_at: e.startsAt } : {}),
  ...(e.endsAt !== undefined ? { ends_at: e.endsAt } : {}),
  ...(e.timeZone !== undefined ? { time_zone: e.timeZone } : {}),
  ...(e.visibility !== undefined ? { visibility: e.visibility } : {}),
});

export function eventDiffers(row: EventRow, e: EventFields): boolean {
  return (
    row.name !== e.name ||
    (e.startsAt !== undefined && row.startsAt !== e.startsAt) ||
    (e.endsAt !== undefined && row.endsAt !== e.endsAt) ||
    (e.timeZone !== undefined && row.timeZone !== e.timeZone) ||
    (e.visibility !== undefined && row.visibility !== e.visibility)
  );
}

export async function insertEvent(trx: Knex, e: EventFields, now: number): Promise<number> {
  const [row] = await trx('events')
    .insert({
      starts_at: null,
      ends_at: null,
      time_zone: null,
      visibility: 'public',
      ...eventColumns(e),
      slug: e.slug,
      created_at: now,
      updated_at: now,
    })
    .returning('id');
  return Number(typeof row === 'object' ? row.id : row);
}

/** The row a just-inserted event has, without reading it back. */
export function eventRow(id: number, e: EventFields, now: number): EventRow {
  return {
    id,
    slug: e.slug,
    name: e.name,
    startsAt: e.startsAt ?? null,
    endsAt: e.endsAt ?? null,
    timeZone: e.timeZone ?? null,
    visibility: e.visibility ?? 'public',
    createdAt: now,
    updatedAt: now,
  };
}

export async function updateEvent(trx: Knex, id: number, e: EventFields, now: number): Promise<void> {
  await trx('events')
    .where({ id })
    .update({ ...eventColumns(e), updated_at: now });
}

/** Makes the event's organizers exactly `userIds`; returns whether anything changed. */
export async function setOrganizers(trx: Knex, eventId: number, userIds: readonly number[]): Promise<boolean> {
  const current = (await trx('event_organizers').where({ event_id: eventId }).pluck('user_id')).map(Number);
  const wanted = new Set(userIds);
  const same = current.length === wanted.size && current.every((id) => wanted.has(id));
  if (same) return false;
  await trx('event_organizers').where({ event_id: eventId }).delete();
  await trx('event_organizers').insert([...wanted].map((user_id) => ({ event_id: eventId, user_id })));
  return true;
}

/** Inserts registrations, leaving existing (event, user) pairs as they are. */
export async function insertRegistrations(
  trx: Knex,
  pairs: readonly { eventId: number; userId: number }[],
  now: number,
): Promise<void> {
  for (const part of chunks(pairs)) {
    await trx('registrations')
      .insert(part.map((p) => ({ event_id: p.eventId, user_id: p.userId, created_at: now })))
      .onConflict(['event_id', 'user_id'])
      .ignore();
  }
}
