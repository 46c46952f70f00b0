import { isSqlite } from './dialect.js';
import { chunks } from './chunks.js';
import type { Db } from './database.js';
import { hotRead } from './hot-reads.js';
import { keysetPage } from './keyset.js';
import { RegistrationStaging } from './registration-staging.js';
import type { EpochRead } from './rows-at-epoch.js';
import { toRegistration, toRegistrationWithRegistrant } from './rows.js';
import { StartsAtEpoch } from './starts-at-epoch.js';
import type { KeysetRange, Page, PageWindow, RegistrationRow, RegistrationWithRegistrant } from './types.js';

/** A registration named by its event's slug and its user's uid. */
export interface RegistrationKeys {
  id: number;
  event: string;
  user: string;
}

/** Rows of events' first registrations kept in all: a few MB, about 40 at most with every name at its longest. */
const STARTS_KEPT_ROWS = 20_000;
/** Rows kept of one event: the largest page the API gives out (1,000) and the row telling whether more follow. */
const LONGEST_START = 1_001;

/** A registration read with its registrant, frozen: a kept one is shared by every request reading its epochs. */
const frozenRegistration = (raw: Record<string, unknown>): RegistrationWithRegistrant => {
  const row = toRegistrationWithRegistrant(raw);
  Object.freeze(row.registrant);
  return Object.freeze(row);
};

export class RegistrationStore {
  /** The API's first pages of each event's registrations, kept while the epochs stand still (starts-at-epoch.ts). */
  private readonly starts = new StartsAtEpoch<RegistrationWithRegistrant>(STARTS_KEPT_ROWS, LONGEST_START);

  constructor(private readonly db: Db) {}

  /** Keyset page: registrations of an event with id > afterId, in id order, each with its registrant. */
  async page(eventId: number, first: number, afterId: number | null): Promise<Page<RegistrationWithRegistrant>> {
    const rows = (await this.pageQuery(eventId, first, afterId)).map(toRegistrationWithRegistrant);
    return { rows: rows.slice(0, first), hasNextPage: rows.length > first };
  }

  /**
   * Keyset window: registrations of an event between two ids, `size` from the start or (backward) from
   * the end, returned oldest first. Items past a cursor given are known to exist, as Relay allows. Given the
   * epochs the caller read just before, a window within the event's first registrations read at those same
   * epochs is served from them, no statement (starts-at-epoch.ts).
   */
  async window(
    eventId: number,
    size: number,
    range: KeysetRange,
    epochs?: EpochRead,
  ): Promise<PageWindow<RegistrationWithRegistrant>> {
    const { afterId, beforeId, backward } = range;
    // A transaction's reads may see its own writes, not yet anyone else's: never kept, never served kept rows.
    const at = this.db.isTransaction ? undefined : epochs;
    const read = this.starts.window(eventId, at, size + 1, range) ?? (await this.readWindow(eventId, size, range, at));
    const more = read.length > size;
    const rows = backward ? read.slice(0, size).reverse() : read.slice(0, size);
    return backward
      ? { rows, hasPreviousPage: more, hasNextPage: beforeId !== null }
      : { rows, hasPreviousPage: afterId !== null, hasNextPage: more };
  }

  /** A window's rows by its statement; the event's first ones, read after `at`, kept for that epoch. */
  private async readWindow(
    eventId: number,
    size: number,
    { afterId, beforeId, backward }: KeysetRange,
    at: EpochRead | undefined,
  ): Promise<RegistrationWithRegistrant[]> {
    const start = at !== undefined && afterId === null && beforeId === null && !backward;
    const raw = await this.pageQuery(eventId, size, afterId, beforeId, backward);
    if (!start) return raw.map(toRegistrationWithRegistrant);
    const rows = raw.map(frozenRegistration);
    this.starts.keep(eventId, at, size + 1, rows);
    return rows;
  }

  /** One registration with its registrant, by id. */
  async findWithRegistrant(id: number): Promise<RegistrationWithRegistrant | undefined> {
    const row = await this.withRegistrant().where('r.id', id).first();
    return row ? toRegistrationWithRegistrant(row) : undefined;
  }

  /** Registrations with their registrants, by id (those that exist). */
  async findManyWithRegistrant(ids: readonly number[]): Promise<RegistrationWithRegistrant[]> {
    const found: RegistrationWithRegistrant[] = [];
    for (const part of chunks(ids)) {
      found.push(...(await this.withRegistrant().whereIn('r.id', part)).map(toRegistrationWithRegistrant));
    }
    return found;
  }

  /** Ids of the events each user is registered for, in a few statements for any number of users. */
  async eventIdsOfMany(userIds: readonly number[]): Promise<Map<number, number[]>> {
    const byUser = new Map<number, number[]>(userIds.map((id) => [id, []]));
    for (const part of chunks(userIds)) {
      const rows = await this.db('registrations').whereIn('user_id', part).select('user_id', 'event_id');
      for (const r of rows) byUser.get(Number(r.user_id))?.push(Number(r.event_id));
    }
    return byUser;
  }

  private withRegistrant() {
    return this.db('registrations as r')
      .join('users as u', 'u.id', 'r.user_id')
      .select(
        'r.id',
        'r.event_id',
        'r.user_id',
        'r.created_at',
        'u.uid as user_uid',
        'u.name as user_name',
        'u.email as user_email',
        'u.activation_state as user_activation_state',
      );
  }

  /**
   * The page's statement: a range scan of the (event_id, id) index, so any page costs what the first
   * does, joined to the registrants by primary key (one statement, not a second `IN` lookup).
   */
  pageStatement(
    eventId: number,
    limit: number,
    afterId: number | null,
    beforeId: number | null = null,
    backward = false,
  ) {
    const query = this.withRegistrant()
      .where('r.event_id', eventId)
      .orderBy('r.id', backward ? 'desc' : 'asc')
      .limit(limit);
    if (afterId !== null) void query.andWhere('r.id', '>', afterId);
    if (beforeId !== null) void query.andWhere('r.id', '<', beforeId);
    return query;
  }

  /** A page's rows and one more (is there a next?), by the page statement compiled once per shape. */
  private pageQuery(
    eventId: number,
    first: number,
    afterId: number | null,
    beforeId: number | null = null,
    backward = false,
  ): Promise<Record<string, unknown>[]> {
    const args = [eventId, first + 1];
    if (afterId !== null) args.push(afterId);
    if (beforeId !== null) args.push(beforeId);
    const shape = `registrations.page ${afterId !== null} ${beforeId !== null} ${backward}`;
    return hotRead(this.db, shape, args, (event, limit, ...bounds) =>
      this.pageStatement(
        event,
        limit,
        afterId === null ? null : bounds.shift()!,
        beforeId === null ? null : bounds.shift()!,
        backward,
      ),
    );
  }

  /** Keyset page of every registration, at all events, in id order: the primary key's range scan. */
  everyPage(first: number, afterId: number | null): Promise<Page<RegistrationKeys>> {
    const query = this.db('registrations as r')
      .join('events as e', 'e.id', 'r.event_id')
      .join('users as u', 'u.id', 'r.user_id')
      .select('r.id', 'e.slug', 'u.uid');
    return keysetPage(query, 'r.id', first, afterId, (r) => ({
      id: Number(r.id),
      event: String(r.slug),
      user: String(r.uid),
    }));
  }

  /** Registration counts per event, in one statement. */
  async counts(eventIds: readonly number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>(eventIds.map((id) => [id, 0]));
    if (eventIds.length === 0) return counts;
    const rows: { event_id: number; n: number | string }[] = await this.db('registrations')
      .whereIn('event_id', eventIds)
      .groupBy('event_id')
      .select('event_id')
      .count({ n: '*' });
    for (const r of rows) counts.set(Number(r.event_id), Number(r.n));
    return counts;
  }

  async create(eventId: number, userId: number, now = Date.now()): Promise<RegistrationRow> {
    const [row] = await this.db('registrations')
      .insert({ event_id: eventId, user_id: userId, created_at: now })
      .returning('*');
    return toRegistration(row);
  }

  /** Inserts registrations in batched statements, leaving existing (event, user) pairs as they are. */
  async insertMany(pairs: readonly { eventId: number; userId: number }[], now = Date.now()): Promise<void> {
    for (const part of chunks(pairs)) {
      await this.db('registrations')
        .insert(part.map((p) => ({ event_id: p.eventId, user_id: p.userId, created_at: now })))
        .onConflict(['event_id', 'user_id'])
        .ignore();
    }
  }

  /**
   * PostgreSQL, inside a transaction: a COPY-fed stage for a long run of imported registrations. Undefined on
   * SQLite, where batched inserts in-process are as fast.
   */
  staging(now = Date.now()): RegistrationStaging | undefined {
    return isSqlite(this.db) ? undefined : new RegistrationStaging(this.db, now);
  }

  async find(eventId: number, userId: number): Promise<RegistrationRow | undefined> {
    const row = await this.db('registrations').where({ event_id: eventId, user_id: userId }).first();
    return row ? toRegistration(row) : undefined;
  }

  async delete(eventId: number, userId: number): Promise<boolean> {
    return (await this.db('registrations').where({ event_id: eventId, user_id: userId }).delete()) > 0;
  }

  /** How many registrations the user has, at all events. */
  async countOf(userId: number): Promise<number> {
    const row = await this.db('registrations').where({ user_id: userId }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
