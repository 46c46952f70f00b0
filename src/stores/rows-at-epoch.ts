import { LRUCache } from 'lru-cache';

// Every write to the events and event_organizers tables moves the data epoch in the write's own transaction
// (the data_epoch migration). A row of theirs read after a request read epoch E therefore stands for as long
// as the epoch a later request reads is still E: such a request is served the row kept, no statement.

/**
 * How long after its epochs read a request may still be served kept rows: they are as old as that read, and
 * what the request reads afresh (registrations) is not, so a request held up longer (a body sent slowly, a
 * wait for a connection) must read the epochs again rather than judge access by older rows.
 */
export const REUSE_WINDOW_MS = 100;

/** A data epoch, the change log's head read with it, and when they were read (performance.now()). */
export interface EpochRead {
  epoch: string;
  changes: string;
  readAt: number;
}

/** Whether rows kept at `at`'s epoch may still be served on its strength (REUSE_WINDOW_MS). */
export const withinReuseWindow = (at: EpochRead): boolean => performance.now() - at.readAt <= REUSE_WINDOW_MS;

/** Whether data epoch `a` is later than `b` (decimal counters, PostgreSQL's bigint as text). */
const later = (a: string, b: string): boolean => a.length > b.length || (a.length === b.length && a > b);

/** Whether `a` and `b` read the same data epoch and change-log head. */
export const sameEpochRead = (a: EpochRead, b: EpochRead): boolean => a.epoch === b.epoch && a.changes === b.changes;

/** Whether `a` read later epochs than `b` (both counters only ever grow, so one read is never later in one only). */
export const laterEpochRead = (a: EpochRead, b: EpochRead): boolean =>
  later(a.epoch, b.epoch) || (a.epoch === b.epoch && later(a.changes, b.changes));

export class RowsAtEpoch<K extends string | number, V extends object> {
  /** Made on first use: a store made for one transaction never keeps anything. */
  private kept: LRUCache<K, { epoch: string; row: V }> | undefined;

  /** `max`: rows kept, least recently read dropped first. Rows not found are never kept. */
  constructor(private readonly max: number) {}

  /**
   * The rows of `keys` (those that exist, in no set order): kept ones read at `at`'s epoch, the rest by `read`,
   * then kept for it. Without `at`, or past REUSE_WINDOW_MS since it, every key is read. A kept row that is
   * not `usable` is read again, as one never kept: a caller then cannot tell it from a row that does not exist.
   * The rows handed out are frozen: every request that reads the same epoch shares them.
   */
  async get(
    keys: readonly K[],
    at: EpochRead | undefined,
    keyOf: (row: V) => K,
    read: (keys: readonly K[]) => Promise<V[]>,
    usable: (row: V) => boolean = () => true,
  ): Promise<V[]> {
    if (at === undefined || !withinReuseWindow(at)) return read(keys);
    const { epoch } = at;
    const kept = (this.kept ??= new LRUCache({ max: this.max }));
    const rows: V[] = [];
    const missing: K[] = [];
    for (const key of keys) {
      // Looked at first, made recent only when it serves: rows of an older epoch are the first dropped.
      const entry = kept.peek(key);
      if (entry?.epoch === epoch && usable(entry.row)) {
        kept.get(key);
        rows.push(entry.row);
      } else missing.push(key);
    }
    if (missing.length === 0) return rows;
    for (const row of await read(missing)) {
      const frozen = Object.freeze(row);
      rows.push(frozen);
      const key = keyOf(frozen);
      // A request that read an older epoch, finishing after one that read a newer: the newer stays.
      const entry = kept.peek(key);
      if (entry === undefined || !later(entry.epoch, epoch)) kept.set(key, { epoch, row: frozen });
    }
    return rows;
  }

  /** How many rows are kept (for the tests). */
  get size(): number {
    return this.kept?.size ?? 0;
  }
}
