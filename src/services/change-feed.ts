import type { ChangeFilter, ChangeRow } from '../stores/change-store.js';
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

/** At most this many changes are examined for one page: a viewer that may see few of them is not a scan of all. */
export const MAX_EXAMINED = 5000;

export interface FeedPage {
  changes: ChangeRow[];
  /** The position of the last change examined (returned or not); at the end of what matches, the head. */
  endPosition: number;
  hasNextPage: boolean;
}

/** The change feed: the change log read in order, each change shown only to whom may see it now. */
export class ChangeFeed {
  constructor(
    private readonly stores: Stores,
    private readonly retentionDays: number,
  ) {}

  /** Drops the changes older than the retention; returns how many. */
  prune(now = Date.now()): Promise<number> {
    return this.stores.changes.prune(now - this.retentionDays * 24 * 60 * 60 * 1000);
  }

  /** `after` null: from the oldest change kept. `first` 0: no changes, and the current head as the position. */
  async page(access: Access, after: number | null, first: number, filter: ChangeFilter): Promise<FeedPage> {
    const { prunedThrough, head } = await this.stores.changes.bounds();
    if (after !== null && after < prunedThrough) throw new ChangesExpired(this.retentionDays);
    if (after !== null && after > head) throw new UnknownChangeCursor('no change log position this high was given out');
    if (first === 0) return { changes: [], endPosition: after ?? head, hasNextPage: false };
    const shown: ChangeRow[] = [];
    // Without a cursor: from the oldest change kept, so an empty page's position is not one already pruned.
    let position = after ?? prunedThrough;
    let examined = 0;
    for (;;) {
      const batch = Math.min(Math.max(first - shown.length, 100), MAX_EXAMINED - examined) + 1;
      const rows = await this.stores.changes.after(position, batch, filter);
      const more = rows.length === batch;
      const seen = more ? rows.slice(0, -1) : rows;
      for (const row of seen) {
        examined++;
        position = row.position;
        if (await visible(access, row)) shown.push(row);
        if (shown.length === first)
          return { changes: shown, endPosition: position, hasNextPage: more || row !== seen.at(-1) };
      }
      if (more && examined >= MAX_EXAMINED) return { changes: shown, endPosition: position, hasNextPage: true };
      // The end of what matches: every change up to the head read first was committed before it (positions are
      // handed out in commit order), so none is skipped, and a filtered page ends where an unfiltered one would
      // (an event's own positions would tell an outsider of its changes).
      if (!more) return { changes: shown, endPosition: Math.max(position, head), hasNextPage: false };
    }
  }
}

/** May the viewer see this change now: the event (as it was, once deleted), and for registrations, read them. */
async function visible(access: Access, change: ChangeRow): Promise<boolean> {
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
