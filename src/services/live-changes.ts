import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChangeFilter, ChangeRow } from '../stores/change-store.js';
import type { ChangeSignal } from '../stores/change-signal.js';
import type { Stores } from '../stores/stores.js';
import { ChangesExpired, UnknownChangeCursor, WINDOW } from './change-feed.js';

/** Recent changes kept in memory, read once per instance for every stream that is up to date. */
const RING_SIZE = 10_000;

/**
 * How often the head and the auth epoch are read while streams are open: on SQLite the only signal (one
 * process writes, or the CLI beside it); on PostgreSQL what catches a lost notification and a revoked token.
 */
const POLL_MS = { notified: 1000, polled: 250 };

export interface LiveOptions {
  retentionDays: number;
  onError(err: unknown): void;
}

/** What a follower gets: the changes of (previous `through`, `through`] that match its filter, in order. */
export interface LiveBatch {
  rows: ChangeRow[];
  through: number;
  /** Read from the log (a stream behind what memory holds): a page of the log's work, priced as one. */
  fromLog: boolean;
}

const matches = (filter: ChangeFilter) => (row: ChangeRow) =>
  (filter.eventSlug === undefined || row.eventSlug === filter.eventSlug) &&
  (!filter.types?.length || filter.types.includes(row.type));

/**
 * The change log as it grows, for live streams. One reader per instance follows the head (woken by the
 * database's notification on PostgreSQL, polled besides) and keeps the newest changes in memory; each stream
 * follows from its own position, from memory when it is recent and from the log otherwise, so a stream never
 * skips or repeats a change, whichever instance wrote it and however late a signal came.
 */
export class LiveChanges {
  private head = 0;
  /** Every change in (ringFrom, head], in order. */
  private ring: ChangeRow[] = [];
  private ringFrom = 0;
  private authEpoch = '';
  private followers = 0;
  private started: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private signal: ChangeSignal | undefined;
  private wakers = new Set<() => void>();
  private refreshing = false;
  private again = false;
  /** Moves at every stop: a start that a stop overtook starts nothing. */
  private generation = 0;

  constructor(
    private readonly stores: Stores,
    private readonly options: LiveOptions,
  ) {}

  /**
   * Where a new stream starts: after `after` (a change cursor's position), or after the newest change now.
   * ChangesExpired when changes after `after` were pruned; UnknownChangeCursor when it was never given out.
   */
  async startAfter(after: number | null): Promise<number> {
    const { prunedThrough, head } = await this.stores.changes.bounds();
    if (after === null) return head;
    if (after < prunedThrough) throw new ChangesExpired(this.options.retentionDays);
    if (after > head) throw new UnknownChangeCursor('no change log position this high was given out');
    return after;
  }

  /**
   * The batches after `after`, as they commit, until `signal` aborts. A move of the auth epoch away from
   * `sinceEpoch` (and each later one) wakes the follower too, with an empty batch if nothing else is new.
   */
  async *follow(
    after: number,
    filter: ChangeFilter,
    signal: AbortSignal,
    sinceEpoch?: string,
  ): AsyncGenerator<LiveBatch> {
    await this.attach(after);
    try {
      let position = after;
      let epoch = sinceEpoch ?? this.authEpoch;
      while (!signal.aborted) {
        if (this.head <= position && epoch === this.authEpoch) await this.tick(signal);
        if (signal.aborted) return;
        const authMoved = epoch !== this.authEpoch;
        epoch = this.authEpoch;
        if (this.head <= position) {
          if (authMoved) yield { rows: [], through: position, fromLog: false };
          continue;
        }
        const through = Math.min(this.head, position + WINDOW);
        const recent = this.recent(position, through)?.filter(matches(filter));
        const rows = recent ?? (await this.read(position, through, filter));
        position = through;
        yield { rows, through, fromLog: !recent };
      }
    } finally {
      this.detach();
    }
  }

  /** Streams following now. */
  get open(): number {
    return this.followers;
  }

  /** From the log: a stream behind what memory holds (a resume, or one that fell behind). */
  private async read(after: number, through: number, filter: ChangeFilter): Promise<ChangeRow[]> {
    const rows = await this.stores.changes.between(after, through, filter);
    // A prune that committed meanwhile may have taken some of them: refuse rather than skip them.
    if (after < (await this.stores.changes.prunedThrough())) throw new ChangesExpired(this.options.retentionDays);
    return rows;
  }

  /** The changes in (after, through] from memory, or undefined when memory no longer holds all of them. */
  private recent(after: number, through: number): ChangeRow[] | undefined {
    if (after < this.ringFrom) return undefined;
    let lo = 0;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ring[mid]!.position <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: ChangeRow[] = [];
    for (let i = lo; i < this.ring.length && this.ring[i]!.position <= through; i++) out.push(this.ring[i]!);
    return out;
  }

  /** Resolves at the next move of the head or the auth epoch, or when `signal` aborts. */
  private tick(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.wakers.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wakers.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private async attach(after: number): Promise<void> {
    this.followers++;
    try {
      await (this.started ??= this.start(after));
    } catch (err) {
      this.started = undefined;
      this.detach();
      throw err;
    }
  }

  /** Stops following the log (the process is closing): streams still open wait for their own end. */
  close(): void {
    this.followers = 0;
    this.stop();
  }

  private detach(): void {
    if (this.followers > 0) this.followers--;
    if (this.followers === 0) this.stop();
  }

  private stop(): void {
    this.generation++;
    clearInterval(this.timer);
    void this.signal?.close();
    this.signal = undefined;
    this.started = undefined;
    this.ring = [];
  }

  /**
   * The first stream, following from `after`: read where the log stands, then follow it. Memory starts at
   * the stream's own position when the log moved less than a window since (a stream opened as changes commit
   * finds them in memory, as any later one would), else at the head.
   */
  private async start(after: number): Promise<void> {
    const generation = this.generation;
    const [head, epochs] = await Promise.all([this.stores.changes.head(), this.stores.epochs.current()]);
    if (generation !== this.generation) return;
    this.head = this.ringFrom = after <= head && head - after <= WINDOW ? after : head;
    this.authEpoch = epochs.auth;
    this.ring = [];
    this.signal = this.stores.listenForChanges(
      () => this.refresh(),
      (err) => this.options.onError(err),
    );
    this.timer = setInterval(() => this.refresh(), this.signal ? POLL_MS.notified : POLL_MS.polled).unref();
    if (this.head < head) this.refresh();
  }

  /** Reads what is new (one reader at a time; a call meanwhile reads again after it). */
  private refresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    void (async () => {
      do {
        this.again = false;
        const [head, epochs] = await Promise.all([this.stores.changes.head(), this.stores.epochs.current()]);
        let moved = epochs.auth !== this.authEpoch;
        this.authEpoch = epochs.auth;
        while (this.head < head && this.followers > 0) {
          const through = Math.min(head, this.head + WINDOW);
          this.remember(await this.stores.changes.between(this.head, through), through);
          moved = true;
          // SQLite answers without a turn of the event loop: a long run of windows would hold up every request.
          await nextTurn();
        }
        if (moved) this.wake();
      } while (this.again && this.followers > 0);
    })()
      .catch((err: unknown) => this.options.onError(err))
      .finally(() => {
        this.refreshing = false;
      });
  }

  private remember(rows: ChangeRow[], through: number): void {
    this.ring.push(...rows);
    if (this.ring.length > RING_SIZE) {
      const dropped = this.ring.splice(0, this.ring.length - RING_SIZE);
      this.ringFrom = dropped[dropped.length - 1]!.position;
    }
    this.head = through;
    // Woken per window: streams start on the first changes while the next window is read.
    this.wake();
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
  }
}
