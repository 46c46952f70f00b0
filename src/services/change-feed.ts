import type { ChangeFilter, ChangeRow, Touched } from '../stores/change-store.js';
import type { Stores } from '../stores/stores.js';
import type { Access } from './access.js';
import { DomainError } from './errors.js';

/** A cursor from before the oldest change kept: the changes after it are partly gone. */
export class ChangesExpired extends DomainError {
  constructor(retentionDays: number) {
    super(
      `This cursor is older than the changes kept (${retentionDays} days): read the current state again, then start from changes(first: 0).`,
    );
  }
}

/** A cursor past the newest change: never given out (a forged one, or another database's), so it would skip changes. */
export class UnknownChangeCursor extends DomainError {}

/** The positions one page reads at most: what a page costs the database, bounded whatever its filter. */
export const WINDOW = 2000;

export interface FeedPage {
  changes: ChangeRow[];
  /** The last change returned when the page is full, else the end of the window read (at most the head). */
  endPosition: number;
  hasNextPage: boolean;
}

/** The change feed: the change log read in order, each change shown only to whom may see it now. */
export class ChangeFeed {
  constructor(
    private readonly stores: Stores,
    private readonly retentionDays: number,
  ) {}

  /** What the changes after `after` through `through` touched; undefined when over `limit`. */
  touched(after: number, through: number, limit: number): Promise<Touched[] | undefined> {
    return this.stores.changes.touched(after, through, limit);
  }

  /** Drops the changes older than the retention; returns how many. */
  prune(now = Date.now()): Promise<number> {
    return this.stores.changes.prune(now - this.retentionDays * 24 * 60 * 60 * 1000);
  }

  /**
   * `after` null: from the oldest change kept; `first` 0: no changes, and the current head as the position.
   * A page reads one window of positions (`WINDOW`), whatever the filter: its work, its `endPosition` and its
   * `hasNextPage` depend on the log's positions alone, never on which changes match or who may see them.
   */
  async page(access: Access, after: number | null, first: number, filter: ChangeFilter): Promise<FeedPage> {
    const { prunedThrough, head } = await this.stores.changes.bounds();
    if (after !== null && after < prunedThrough) throw new ChangesExpired(this.retentionDays);
    if (after !== null && after > head) throw new UnknownChangeCursor('no change log position this high was given out');
    if (first === 0) return { changes: [], endPosition: after ?? head, hasNextPage: false };
    // Without a cursor: from the oldest change kept, so an empty page's position is not one already pruned.
    const start = after ?? prunedThrough;
    // Every change up to the head read first was committed before it (positions follow commit order).
    const end = Math.min(start + WINDOW, head);
    const rows = await this.stores.changes.between(start, end, filter);
    // A prune that committed meanwhile may have taken some of them: refuse rather than skip them.
    if (start < (await this.stores.changes.prunedThrough())) throw new ChangesExpired(this.retentionDays);
    const shown = await visibleChanges(access, rows);
    if (shown.length >= first) {
      const last = shown[first - 1]!.position;
      return { changes: shown.slice(0, first), endPosition: last, hasNextPage: last < head };
    }
    return { changes: shown, endPosition: end, hasNextPage: end < head };
  }
}

/** The changes the viewer may see now, in order: asked together, so its lookups are batched into one query each. */
export async function visibleChanges(access: Access, rows: ChangeRow[]): Promise<ChangeRow[]> {
  const visibility = await Promise.all(rows.map((row) => visible(access, row)));
  return rows.filter((_row, i) => visibility[i]);
}

/** May the viewer see this change now: the event (as it was, once deleted), and for registrations, read them. */
export async function visible(access: Access, change: ChangeRow): Promise<boolean> {
  switch (change.type) {
    case 'event.deleted':
      return change.deleted !== null && access.sawDeleted(change.deleted);
    case 'event.created':
    case 'event.updated':
      return (await access.eventById(change.eventId)) !== null;
    default:
      return (await access.registrations(change.eventId)) !== null;
  }
}
