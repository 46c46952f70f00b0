import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { eventDiffers } from '../../stores/event-store.js';
import type { Stores } from '../../stores/stores.js';
import { userDiffers, type UserFields } from '../../stores/user-store.js';
import { DomainError } from '../errors.js';
import { parseRecord, type ImportRecord } from './records.js';

export interface ImportCounts {
  users: number;
  events: number;
  registrations: number;
}

export class ImportError extends DomainError {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const BATCH = 500;

type Records<T extends ImportRecord['type']> = Extract<ImportRecord, { type: T }>[];

const missing = (line: number, what: string, key: string) =>
  new ImportError(line, `${what} "${key}" is not defined on an earlier line or in the database`);

/** Map key of a user reference: emails compare case-insensitively. */
const refKey = (key: string) => (key.includes('@') ? key.toLowerCase() : key);

/** `roster import`: NDJSON users, events and registrations, as upserts. */
export class NdjsonImporter {
  constructor(private readonly stores: Stores) {}

  /**
   * Streams NDJSON records into the database in one transaction: all of the file or none of it.
   * Same-type records are batched; a batch is flushed before a record of another type, so a record
   * may refer to anything defined on an earlier line.
   */
  async run(input: Readable, onProgress: (bytes: number) => void = () => {}): Promise<ImportCounts> {
    const counts: ImportCounts = { users: 0, events: 0, registrations: 0 };
    const now = Date.now();
    await this.stores.transaction(async (tx) => {
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
          await flush(tx, batch, now);
          batch = [];
        }
        batch.push(record);
        counts[record.type === 'user' ? 'users' : record.type === 'event' ? 'events' : 'registrations'] += 1;
      }
      await flush(tx, batch, now);
    });
    return counts;
  }
}

async function flush(tx: Stores, batch: ImportRecord[], now: number): Promise<void> {
  if (batch.length === 0) return;
  switch (batch[0]!.type) {
    case 'user':
      return flushUsers(tx, batch as Records<'user'>, now);
    case 'event':
      return flushEvents(tx, batch as Records<'event'>, now);
    case 'registration':
      return flushRegistrations(tx, batch as Records<'registration'>, now);
  }
}

async function flushUsers(tx: Stores, batch: Records<'user'>, now: number) {
  const keys = batch.flatMap((r) => [r.user.uid, r.user.email].filter((k): k is string => !!k));
  const known = await tx.users.findByKeys(keys);
  const pending = new Map<string, UserFields>();
  for (const { line, user } of batch) {
    const byEmail = user.email ? known.get(refKey(user.email)) : undefined;
    const existing = user.uid ? known.get(user.uid) : byEmail;
    if (byEmail && byEmail.id !== existing?.id) {
      throw new ImportError(line, `email ${user.email} already belongs to another user`);
    }
    if (existing) {
      if (userDiffers(existing, user)) await tx.users.update(existing.id, user, now);
      continue;
    }
    // New users are inserted together; a repeat within the batch merges into the first.
    const key = user.uid ?? refKey(user.email!);
    pending.set(key, { ...pending.get(key), ...user });
  }
  await tx.users.insertMany([...pending.values()], now);
}

async function flushEvents(tx: Stores, batch: Records<'event'>, now: number) {
  const known = new Map((await tx.events.findBySlugs(batch.map((r) => r.event.slug))).map((e) => [e.slug, e]));
  const organizers = await tx.users.findByKeys(batch.flatMap((r) => r.organizers));
  for (const { line, event, organizers: keys } of batch) {
    const ids = keys.map((key) => {
      const user = organizers.get(refKey(key));
      if (!user) throw missing(line, 'organizer', key);
      return user.id;
    });
    const existing = known.get(event.slug);
    if (existing) {
      const organizersChanged = await tx.events.setOrganizers(existing.id, ids);
      if (organizersChanged || eventDiffers(existing, event)) await tx.events.update(existing.id, event, now);
    } else {
      const created = await tx.events.insert(event, now);
      await tx.events.setOrganizers(created.id, ids);
      known.set(event.slug, created);
    }
  }
}

async function flushRegistrations(tx: Stores, batch: Records<'registration'>, now: number) {
  const events = new Map((await tx.events.findBySlugs(batch.map((r) => r.event))).map((e) => [e.slug, e]));
  const users = await tx.users.findByKeys(batch.map((r) => r.user));
  const pairs = batch.map(({ line, event, user }) => {
    const e = events.get(event);
    if (!e) throw missing(line, 'event', event);
    const u = users.get(refKey(user));
    if (!u) throw missing(line, 'user', user);
    return { eventId: e.id, userId: u.id };
  });
  await tx.registrations.insertMany(pairs, now);
}
