import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { EVENT_INITIAL, givenEventFields, missingEventField, type NewEventValues } from '../../lib/event-fields.js';
import { eventDiffers, type EventValues } from '../../stores/event-store.js';
import type { RegistrationStaging } from '../../stores/registration-staging.js';
import type { Stores } from '../../stores/stores.js';
import { userDiffers, type NewUser } from '../../stores/user-store.js';
import * as v from '../validation.js';
import { parseRecord, type ImportRecord } from './records.js';
import {
  BadLines,
  ImportError,
  MAX_LISTED_ERRORS,
  reasonOf,
  type DryRunReport,
  type Fail,
  type ImportCounts,
} from './import-report.js';

const BATCH = 500;
type Records<T extends ImportRecord['type']> = Extract<ImportRecord, { type: T }>[];

/** Thrown to roll a dry run back once the whole file has been checked. */
class RolledBack extends Error {}

const missing = (what: string, key: string) => `${what} "${key}" is not defined on an earlier line or in the database`;

/** Map key of a user reference: emails compare case-insensitively. */
const refKey = (key: string) => (key.includes('@') ? key.toLowerCase() : key);

/** `roster import`: NDJSON users, events and registrations, as upserts. */
export class NdjsonImporter {
  constructor(private readonly stores: Stores) {}

  /**
   * Streams NDJSON records into the database in one transaction: all of the file or none of it; the first
   * bad line throws an ImportError.
   */
  async run(input: Readable, onProgress?: (bytes: number, records: number) => void): Promise<ImportCounts> {
    const fail: Fail = (line, reason) => {
      throw new ImportError(line, reason);
    };
    return this.stores.transaction((tx) =>
      load(tx, input, { fail, unlisted: () => {}, stopsAtFirst: true }, onProgress),
    );
  }

  /**
   * Checks the whole file exactly as an import would (references to earlier lines and the database
   * included), then rolls everything back: a bad line is noted and skipped, never fatal.
   */
  async dryRun(input: Readable, onProgress?: (bytes: number, records: number) => void): Promise<DryRunReport> {
    const bad = new BadLines();
    const unlisted = (n: number) => (bad.more += n);
    let counts: ImportCounts | undefined;
    await this.stores
      .transaction(async (tx) => {
        counts = await load(tx, input, { fail: bad.fail, unlisted, stopsAtFirst: false }, onProgress);
        throw new RolledBack();
      })
      .catch((err: unknown) => {
        if (!(err instanceof RolledBack)) throw err;
      });
    return { ok: bad.listed.length === 0, errors: bad.listed, more: bad.more, counts: counts! };
  }
}

/** How load reports bad lines: one at a time, and (a staged run's) beyond those worth listing, as a count. */
interface Report {
  fail: Fail;
  unlisted: (count: number) => void;
  /** An import stops at its first bad line: what is pending is written (and checked) before a line is reported. */
  stopsAtFirst: boolean;
}

/**
 * Same-type records are batched; a batch is flushed before a record of another type, so a record may
 * refer to anything defined on an earlier line. On PostgreSQL a run of registrations is staged whole
 * (COPY) and applied when the run ends. Counts are of the records written.
 */
async function load(
  tx: Stores,
  input: Readable,
  report: Report,
  onProgress: (bytes: number, records: number) => void = () => {},
): Promise<ImportCounts> {
  const { fail } = report;
  const counts: ImportCounts = { users: 0, events: 0, registrations: 0 };
  const now = Date.now();
  const staging = tx.registrations.staging(now);
  let batch: ImportRecord[] = [];
  let line = 0;
  let records = 0;
  const flushBatch = async () => {
    const written = await flush(tx, batch, now, fail);
    if (batch.length > 0) counts[KEY[batch[0]!.type]] += written;
    batch = [];
    if (staging?.size) counts.registrations += await applyStaged(staging, report);
  };
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      if (text.trim() !== '') records += 1;
      onProgress(Buffer.byteLength(text) + 1, records);
      if (text.trim() === '') continue;
      let record: ImportRecord;
      try {
        record = parseRecord(text, line);
      } catch (err) {
        if (report.stopsAtFirst) await flushBatch();
        fail(line, reasonOf(err));
        continue;
      }
      if (staging && record.type === 'registration') {
        if (batch.length > 0) await flushBatch();
        await staging.add(record.line, record.event, record.user);
        continue;
      }
      if (staging?.size || (batch.length > 0 && (batch[0]!.type !== record.type || batch.length >= BATCH))) {
        await flushBatch();
      }
      batch.push(record);
    }
    await flushBatch();
  } finally {
    staging?.abort();
  }
  return counts;
}

/** Reports the staged registrations naming an unknown event or user, writes the rest; returns how many were good. */
async function applyStaged(staging: RegistrationStaging, { fail, unlisted }: Report): Promise<number> {
  const staged = staging.size;
  const { first, count } = await staging.unresolved(MAX_LISTED_ERRORS);
  for (const r of first) fail(r.line, r.missing === 'event' ? missing('event', r.event) : missing('user', r.user));
  unlisted(count - first.length);
  await staging.apply();
  return staged - count;
}

const KEY = { user: 'users', event: 'events', registration: 'registrations' } as const;

/** Writes the batch; returns how many of its records were good. */
async function flush(tx: Stores, batch: ImportRecord[], now: number, fail: Fail): Promise<number> {
  if (batch.length === 0) return 0;
  switch (batch[0]!.type) {
    case 'user':
      return flushUsers(tx, batch as Records<'user'>, now, fail);
    case 'event':
      return flushEvents(tx, batch as Records<'event'>, now, fail);
    case 'registration':
      return flushRegistrations(tx, batch as Records<'registration'>, now, fail);
  }
}

async function flushUsers(tx: Stores, batch: Records<'user'>, now: number, fail: Fail) {
  const keys = batch.flatMap((r) => [r.user.uid, r.user.email].filter((k): k is string => !!k));
  const known = await tx.users.findByKeys(keys);
  const pending = new Map<string, NewUser>();
  // Emails of the batch's new users, to their key: a second new user with the same email is a bad line.
  const pendingEmails = new Map<string, string>();
  let good = 0;
  for (const { line, user } of batch) {
    const byEmail = user.email ? known.get(refKey(user.email)) : undefined;
    const existing = user.uid ? known.get(user.uid) : byEmail;
    if (byEmail && byEmail.id !== existing?.id) {
      fail(line, `email ${user.email} already belongs to another user`);
      continue;
    }
    if (existing) {
      if (userDiffers(existing, user)) await tx.users.update(existing.id, user, now);
      good += 1;
      continue;
    }
    // New users are inserted together; a repeat within the batch merges into the first.
    const key = user.uid ?? refKey(user.email!);
    const earlier = pending.get(key);
    const emailOwner = user.email ? pendingEmails.get(refKey(user.email)) : undefined;
    if (emailOwner !== undefined && emailOwner !== key) {
      fail(line, `email ${user.email} already belongs to another user`);
      continue;
    }
    const name = user.name ?? earlier?.name;
    if (name === undefined) {
      fail(line, 'name is required for a new user');
      continue;
    }
    pending.set(key, { ...earlier, ...user, name });
    if (user.email) pendingEmails.set(refKey(user.email), key);
    good += 1;
  }
  await tx.users.insertMany([...pending.values()], now);
  return good;
}

/** An event as the batch leaves it: its fields, its organizers, and whether it must be written. */
interface EventState {
  id?: number;
  row: EventValues;
  organizerIds: number[];
  changed: boolean;
  organizersChanged: boolean;
}

const sameIds = (a: readonly number[], b: readonly number[]) => {
  const set = new Set(b);
  return a.length === set.size && a.every((id) => set.has(id));
};

/**
 * Applies the batch's records in order to what is stored (or created earlier in the batch), then writes the
 * outcome in a few statements: new events in order of first appearance (ids follow the file), changed ones
 * one update each, replaced organizers together.
 */
async function flushEvents(tx: Stores, batch: Records<'event'>, now: number, fail: Fail) {
  const stored = await tx.events.findBySlugs(batch.map((r) => r.event.slug));
  const storedOrganizers = await tx.events.organizerIds(stored.map((e) => e.id));
  const states = new Map<string, EventState>(
    stored.map((e) => [
      e.slug,
      { id: e.id, row: e, organizerIds: storedOrganizers.get(e.id)!, changed: false, organizersChanged: false },
    ]),
  );
  const organizers = await tx.users.findByKeys(batch.flatMap((r) => r.organizers ?? []));
  let good = 0;
  for (const { line, event, organizers: keys } of batch) {
    const unknown = keys?.find((key) => !organizers.has(refKey(key)));
    if (unknown !== undefined) {
      fail(line, missing('organizer', unknown));
      continue;
    }
    const ids = keys && [...new Set(keys.map((key) => organizers.get(refKey(key))!.id))];
    const state = states.get(event.slug);
    if (state) {
      try {
        // Only one end given: the range is checked against the stored other end.
        v.timeRange(
          event.startsAt === undefined ? state.row.startsAt : event.startsAt,
          event.endsAt === undefined ? state.row.endsAt : event.endsAt,
        );
      } catch (err) {
        fail(line, reasonOf(err));
        continue;
      }
      if (ids && !sameIds(state.organizerIds, ids)) {
        state.organizerIds = ids;
        state.organizersChanged = state.changed = true;
      }
      if (eventDiffers(state.row, event)) state.changed = true;
      state.row = { ...state.row, ...givenEventFields(event) };
    } else {
      const required = missingEventField(event);
      if (required || ids === undefined) {
        fail(line, `${required?.key ?? 'organizers'} is required for a new event`);
        continue;
      }
      states.set(event.slug, {
        row: { ...EVENT_INITIAL, ...(givenEventFields(event) as NewEventValues), slug: event.slug },
        organizerIds: ids,
        changed: true,
        organizersChanged: true,
      });
    }
    good += 1;
  }
  const written = [...states.values()].filter((s) => s.changed);
  const created = await tx.events.insertMany(
    written.filter((s) => s.id === undefined).map((s) => s.row),
    now,
  );
  for (const s of written) {
    if (s.id === undefined) s.id = created.get(s.row.slug)!;
    else await tx.events.update(s.id, s.row, now);
  }
  await tx.events.replaceOrganizers(
    new Map(written.filter((s) => s.organizersChanged).map((s) => [s.id!, s.organizerIds])),
  );
  return good;
}

async function flushRegistrations(tx: Stores, batch: Records<'registration'>, now: number, fail: Fail) {
  const events = new Map((await tx.events.findBySlugs(batch.map((r) => r.event))).map((e) => [e.slug, e]));
  const users = await tx.users.findByKeys(batch.map((r) => r.user));
  const pairs: { eventId: number; userId: number }[] = [];
  for (const { line, event, user } of batch) {
    const e = events.get(event);
    const u = users.get(refKey(user));
    if (!e) fail(line, missing('event', event));
    else if (!u) fail(line, missing('user', user));
    else pairs.push({ eventId: e.id, userId: u.id });
  }
  await tx.registrations.insertMany(pairs, now);
  return pairs.length;
}
