import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import * as store from '../../stores/import-store.js';
import type { Db } from '../../stores/knex.js';
import { parseRecord, type ImportRecord } from './records.js';

export interface ImportCounts {
  users: number;
  events: number;
  registrations: number;
}

export class ImportError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const BATCH = 500;

/**
 * Streams NDJSON records into the database in one transaction: all of the file or none of it.
 * Same-type records are batched; a batch is flushed before a record of another type, so a record
 * may refer to anything defined on an earlier line.
 */
export async function importNdjson(
  db: Db,
  input: Readable,
  onProgress: (bytes: number) => void = () => {},
): Promise<ImportCounts> {
  const counts: ImportCounts = { users: 0, events: 0, registrations: 0 };
  const now = Date.now();
  await db.transaction(async (trx) => {
    let batch: ImportRecord[] = [];
    let line = 0;
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      onProgress(Buffer.byteLength(text) + 1);
      if (text.trim() === '') continue;
      let record: ImportRecord;
      try {
        record = parseRecord(text, line);
      } catch (err) {
        throw new ImportError(line, err instanceof Error ? err.message : String(err));
      }
      if (batch.length > 0 && (batch[0]!.type !== record.type || batch.length >= BATCH)) {
        await flush(trx, batch, now);
        batch = [];
      }
      batch.push(record);
      counts[record.type === 'user' ? 'users' : record.type === 'event' ? 'events' : 'registrations'] += 1;
    }
    await flush(trx, batch, now);
  });
  return counts;
}

async function flush(trx: Knex, batch: ImportRecord[], now: number): Promise<void> {
  if (batch.length === 0) return;
  switch (batch[0]!.type) {
    case 'user':
      return flushUsers(trx, batch as Extract<ImportRecord, { type: 'user' }>[], now);
    case 'event':
      return flushEvents(trx, batch as Extract<ImportRecord, { type: 'event' }>[], now);
    case 'registration':
      return flushRegistrations(trx, batch as Extract<ImportRecord, { type: 'registration' }>[], now);
  }
}

const missing = (line: number, what: string, key: string) =>
  new ImportError(line, `${what} "${key}" is not defined on an earlier line or in the database`);

/** Map key of a user reference: emails compare case-insensitively. */
const refKey = (key: string) => (key.includes('@') ? key.toLowerCase() : key);

async function flushUsers(trx: Knex, batch: Extract<ImportRecord, { type: 'user' }>[], now: number) {
  const keys = batch.flatMap((r) => [r.user.uid, r.user.email].filter((k): k is string => !!k));
  const known = await store.usersByKeys(trx, keys);
  const pending = new Map<string, store.UserFields>();
  for (const { line, user } of batch) {
    const byEmail = user.email ? known.get(refKey(user.email)) : undefined;
    const existing = user.uid ? known.get(user.uid) : byEmail;
    if (byEmail && byEmail.id !== existing?.id) {
      throw new ImportError(line, `email ${user.email} already belongs to another user`);
    }
    if (existing) {
      if (store.userDiffers(existing, user)) await store.updateUser(trx, existing.id, user, now);
      continue;
    }
    // New users are inserted together; a repeat within the batch merges into the first.
    const key = user.uid ?? refKey(user.email!);
    pending.set(key, { ...pending.get(key), ...user });
  }
  await store.insertUsers(trx, [...pending.values()], now);
}

async function flushEvents(trx: Knex, batch: Extract<ImportRecord, { type: 'event' }>[], now: number) {
  const known = await store.eventsBySlugs(
    trx,
    batch.map((r) => r.event.slug),
  );
  const organizers = await store.usersByKeys(
    trx,
    batch.flatMap((r) => r.organizers),
  );
  for (const { line, event, organizers: keys } of batch) {
    const ids = keys.map((key) => {
      const user = organizers.get(refKey(key));
      if (!user) throw missing(line, 'organizer', key);
      return user.id;
    });
    const existing = known.get(event.slug);
    if (existing) {
      const organizersChanged = await store.setOrganizers(trx, existing.id, ids);
      if (organizersChanged || store.eventDiffers(existing, event)) {
        await store.updateEvent(trx, existing.id, event, now);
      }
    } else {
      const id = await store.insertEvent(trx, event, now);
      await store.setOrganizers(trx, id, ids);
      known.set(event.slug, store.eventRow(id, event, now));
    }
  }
}

async function flushRegistrations(trx: Knex, batch: Extract<ImportRecord, { type: 'registration' }>[], now: number) {
  const events = await store.eventsBySlugs(
    trx,
    batch.map((r) => r.event),
  );
  const users = await store.usersByKeys(
    trx,
    batch.map((r) => r.user),
  );
  const pairs = batch.map(({ line, event, user }) => {
    const e = events.get(event);
    if (!e) throw missing(line, 'event', event);
    const u = users.get(refKey(user));
    if (!u) throw missing(line, 'user', user);
    return { eventId: e.id, userId: u.id };
  });
  await store.insertRegistrations(trx, pairs, now);
}
