import type { Db } from './database.js';

/** What the change log records (the webhook `type`s; GraphQL spells them in capitals). */
export const CHANGE_TYPES = [
  'registration.created',
  'registration.deleted',
  'registrant.updated',
  'event.created',
  'event.updated',
  'event.deleted',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** A deleted event as it was: who could see it, and its name. */
export interface DeletedEvent {
  name: string;
  visibility: 'public' | 'private';
  organizers: number[];
}

export interface ChangeRow {
  position: number;
  type: ChangeType;
  eventId: number;
  eventSlug: string;
  registrationId: number | null;
  userId: number | null;
  /** event.deleted only. */
  deleted: DeletedEvent | null;
  occurredAt: number;
}

/** What one change touched, as the replay cache needs it. */
export interface Touched {
  eventId: number;
  userId: number | null;
  /** A registration added: its id (a page that ends before it did not show it). */
  createdId: number | null;
}

export interface ChangeFilter {
  eventSlug?: string;
  types?: readonly ChangeType[];
}

type Raw = Record<string, unknown>;
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toChange(r: Raw): ChangeRow {
  return {
    position: Number(r.position),
    type: r.type as ChangeType,
    eventId: Number(r.event_id),
    eventSlug: String(r.event_slug),
    registrationId: numOrNull(r.registration_id),
    userId: numOrNull(r.user_id),
    deleted: r.detail ? (JSON.parse(String(r.detail)) as DeletedEvent) : null,
    occurredAt: Number(r.occurred_at),
  };
}

/** The change log the database's triggers write (see the change_log migration); read and pruned here. */
export class ChangeStore {
  constructor(private readonly db: Db) {}

  /** The changes at positions from `after` (excluded) to `through` (included) that match, in position order. */
  async between(after: number, through: number, filter: ChangeFilter = {}): Promise<ChangeRow[]> {
    const query = this.db('changes').where('position', '>', after).where('position', '<=', through).orderBy('position');
    if (filter.eventSlug !== undefined) void query.where('event_slug', filter.eventSlug);
    if (filter.types?.length) void query.whereIn('type', filter.types);
    return (await query).map(toChange);
  }

  /**
   * What the changes from `after` (excluded) to `through` (included) touched, or undefined when there
   * are more than `limit` of them. One statement; the replay cache's only read of the log.
   */
  async touched(after: number, through: number, limit: number): Promise<Touched[] | undefined> {
    const rows = await this.db('changes')
      .select('type', 'event_id', 'user_id', 'registration_id')
      .where('position', '>', after)
      .where('position', '<=', through)
      .limit(limit + 1);
    if (rows.length > limit) return undefined;
    return rows.map((r: Raw) => ({
      eventId: Number(r.event_id),
      userId: numOrNull(r.user_id),
      createdId: r.type === 'registration.created' ? numOrNull(r.registration_id) : null,
    }));
  }

  /** Changes after `after`, in position order, at most `limit`. */
  async after(after: number, limit: number, filter: ChangeFilter = {}): Promise<ChangeRow[]> {
    const query = this.db('changes').where('position', '>', after).orderBy('position').limit(limit);
    if (filter.eventSlug !== undefined) void query.where('event_slug', filter.eventSlug);
    if (filter.types?.length) void query.whereIn('type', filter.types);
    return (await query).map(toChange);
  }

  /** The newest position recorded (or dropped): where a reader that wants only what comes next starts. */
  async head(): Promise<number> {
    return (await this.bounds()).head;
  }

  /** Where the kept log starts (prunedThrough) and ends (head), in one statement: every cursor given out is between. */
  async bounds(): Promise<{ prunedThrough: number; head: number }> {
    const [row] = await this.db('change_log_state as s')
      .where('s.id', 1)
      .select('s.pruned_through', this.db('changes').max('position').as('newest'));
    const prunedThrough = Number(row?.pruned_through ?? 0);
    return { prunedThrough, head: Math.max(prunedThrough, Number(row?.newest ?? 0)) };
  }

  /** Changes up to this position were dropped: a cursor before it has missed some. */
  async prunedThrough(): Promise<number> {
    const row = await this.db('change_log_state').where({ id: 1 }).first('pruned_through');
    return Number(row?.pruned_through ?? 0);
  }

  /**
   * Drops the changes that occurred before `cutoff` (ms), as one prefix of the log, and remembers how far;
   * answers replayed from before move on (the database moves the data epoch). Returns how many were dropped.
   * How far is moved first: the database refuses to delete a change after it (see the
   * guard_change_log_and_epochs migration).
   */
  async prune(cutoff: number): Promise<number> {
    return this.db.transaction(async (trx): Promise<number> => {
      const row = await trx('changes').where('occurred_at', '<', cutoff).max({ last: 'position' }).first();
      const last = Number(row?.last ?? 0);
      if (!last) return 0;
      await trx('change_log_state')
        .where({ id: 1 })
        .where('pruned_through', '<', last)
        .update({ pruned_through: last });
      return await trx('changes').where('position', '<=', last).delete();
    });
  }
}
