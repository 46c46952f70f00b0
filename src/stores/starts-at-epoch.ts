import { LRUCache } from 'lru-cache';
import { laterEpochRead, sameEpochRead, withinReuseWindow, type EpochRead } from './rows-at-epoch.js';
import type { KeysetRange } from './types.js';

// A registration added or removed moves the change log's head, and a write to a registrant (a user) or to a
// registration moves the data epoch, each in the write's own transaction. The start of an event's list read
// after a request read both therefore stands for as long as a later request reads the same two: such a
// request is served its page from the kept start, no statement.

interface Start<R> {
  at: EpochRead;
  /** The first rows of the list, in id order. */
  rows: readonly R[];
  /** Whether `rows` is the whole list. */
  complete: boolean;
}

/** The index of the first row whose id is greater than `id` (or, `inclusive`, at least `id`). */
function indexPast(rows: readonly { id: number }[], id: number, inclusive: boolean): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.id < id || (!inclusive && rows[mid]!.id === id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class StartsAtEpoch<R extends { id: number }> {
  /** Made on first use: a store made for one transaction never keeps anything. */
  private kept: LRUCache<number, Start<R>> | undefined;

  /** `maxRows`: rows kept in all, least recently read list dropped first; `longest`: rows kept of one list. */
  constructor(
    private readonly maxRows: number,
    private readonly longest: number,
  ) {}

  /**
   * The rows the page statement would return for `limit` rows of list `key` within `bounds` (in id order,
   * descending when backward), when the start kept at `at`'s epochs holds every one of them; else undefined.
   */
  window(key: number, at: EpochRead | undefined, limit: number, bounds: KeysetRange): R[] | undefined {
    if (at === undefined || !withinReuseWindow(at)) return undefined;
    const start = this.kept?.peek(key);
    if (!start || !sameEpochRead(start.at, at)) return undefined;
    const { rows, complete } = start;
    const { afterId, beforeId, backward } = bounds;
    const hi = beforeId === null ? rows.length : indexPast(rows, beforeId, true);
    const lo = Math.min(hi, afterId === null ? 0 : indexPast(rows, afterId, false));
    // Every row of the list between the bounds is kept: the whole list is, or a kept row lies past `before`.
    const bounded = complete || hi < rows.length;
    let served: R[];
    if (backward) {
      if (!bounded) return undefined;
      served = rows.slice(Math.max(lo, hi - limit), hi).reverse();
    } else if (bounded || lo + limit <= hi) {
      served = rows.slice(lo, Math.min(hi, lo + limit));
    } else return undefined;
    this.kept!.get(key);
    return served;
  }

  /**
   * Keeps the first rows of list `key`, read after `at` by a statement asking `limit` (fewer came: the whole
   * list). A longer start read at the same epochs, or any start read at later ones, stays. The rows are handed
   * to every later request reading the same epochs: the caller gives them frozen.
   */
  keep(key: number, at: EpochRead | undefined, limit: number, rows: readonly R[]): void {
    // However long the read took, its rows are no older than `at`'s epochs: only serving needs the window.
    if (at === undefined || rows.length > this.longest) return;
    const kept = (this.kept ??= new LRUCache({
      maxSize: this.maxRows,
      sizeCalculation: (start) => Math.max(1, start.rows.length),
    }));
    const current = kept.peek(key);
    if (current) {
      if (laterEpochRead(current.at, at)) return;
      if (sameEpochRead(current.at, at) && (current.complete || current.rows.length >= rows.length)) return;
    }
    kept.set(key, { at, rows: Object.freeze([...rows]), complete: rows.length < limit });
  }

  /** How many lists are kept (for the tests). */
  get size(): number {
    return this.kept?.size ?? 0;
  }
}
