import type {
  EventChangesQuery as EventChanges,
  RegistrationsPageQuery as RegistrationsPage,
} from '../client/generated/graphql.js';
import { execute, RosterError, type Roster } from '../client/roster.js';
import { putRegistration, type LocalCopy, type Registration } from './local-copy.js';
import { ChangesHeadQuery, EventChangesQuery, RegistrationsPageQuery } from './operations.js';

/** What one catch-up did. */
export interface SyncReport {
  /** Why the event's registrations were read whole (no copy yet, an expired cursor, …); null when resumed. */
  readWhole: string | null;
  /** The changes read from the feed and applied (some change nothing: the copy held them already). */
  applied: number;
}

/** The event's registrations now, page by page, oldest first; null when the event is gone (or hidden). */
async function readRegistrations(
  roster: Roster,
  slug: string,
  pageSize: number,
): Promise<Map<string, Registration> | null> {
  const registrations = new Map<string, Registration>();
  let after: string | null = null;
  for (;;) {
    // Annotated: `after` comes from the previous page, which TypeScript cannot infer in a loop by itself.
    const data: RegistrationsPage = await execute(roster, RegistrationsPageQuery, { slug, first: pageSize, after });
    // Registrations are null only with an error (FORBIDDEN: the token does not organize the event), which
    // execute() throws; the event is null when it is gone or hidden.
    const page = data.event?.registrations;
    if (!page) return null;
    for (const registration of page.nodes) registrations.set(registration.registrant.id, registration);
    if (!page.pageInfo.hasNextPage) return registrations;
    after = page.pageInfo.endCursor;
  }
}

/**
 * A new copy: the feed's head first, then the registrations. A change made while they are read is after
 * the head, so the catch-up that follows applies it, whether the pages already showed it or not.
 */
export async function readWhole(roster: Roster, slug: string, pageSize: number): Promise<LocalCopy> {
  const head = await execute(roster, ChangesHeadQuery, {});
  const registrations = await readRegistrations(roster, slug, pageSize);
  if (!registrations) throw new Error(`No event ${slug} (or this token may not see it).`);
  return { roster: roster.url, event: slug, cursor: head.changes.pageInfo.endCursor, registrations };
}

type Change = EventChanges['changes']['nodes'][number];

/**
 * Applies one change to the copy; returns whether the copy must be read again. The objects of a change are
 * their current state, so a change applied to a copy that already holds it changes nothing.
 */
function apply(copy: LocalCopy, change: Change, print: (line: string) => void): boolean {
  switch (change.type) {
    case 'REGISTRATION_CREATED':
      // Null: removed since; its REGISTRATION_DELETED comes later in the feed.
      if (change.registration) {
        putRegistration(copy, change.registration);
        print(`+ ${change.registration.registrant.name}`);
      }
      return false;
    case 'REGISTRATION_DELETED': {
      // The registration is gone (null), its registrant is shown while the user exists: a user deleted since
      // leaves nothing to match an entry by, so the registrations are read again.
      if (!change.registrant) {
        print('- a registrant no longer shown: reading the registrations again');
        return true;
      }
      if (copy.registrations.delete(change.registrant.id)) print(`- ${change.registrant.name}`);
      return false;
    }
    case 'REGISTRANT_UPDATED': {
      const known = change.registrant && copy.registrations.get(change.registrant.id);
      if (known && change.registrant) {
        known.registrant = change.registrant;
        print(`~ ${change.registrant.name}`);
      }
      return false;
    }
    case 'EVENT_DELETED':
      copy.registrations.clear();
      print(`x ${copy.event} was deleted`);
      return false;
    default:
      return false;
  }
}

/**
 * Pages through the event's changes after the copy's cursor to the end of the feed, saving the copy after
 * each page. A delete whose registrant is not shown (the user was deleted too) cannot be matched to an entry:
 * after that page the event's registrations are read again, whole, which is simple and exact.
 */
async function catchUp(
  roster: Roster,
  copy: LocalCopy,
  pageSize: number,
  save: (copy: LocalCopy) => Promise<void>,
  print: (line: string) => void,
): Promise<number> {
  let applied = 0;
  for (;;) {
    const { changes }: EventChanges = await execute(roster, EventChangesQuery, {
      event: copy.event,
      after: copy.cursor,
      first: pageSize,
    });
    let readAgain = false;
    for (const change of changes.nodes) {
      if (apply(copy, change, print)) readAgain = true;
      applied += 1;
    }
    if (readAgain)
      copy.registrations = (await readRegistrations(roster, copy.event, pageSize)) ?? new Map<string, Registration>();
    copy.cursor = changes.pageInfo.endCursor;
    await save(copy);
    if (!changes.pageInfo.hasNextPage) return applied;
  }
}

/** How many registrations the copy holds, in words. */
export const count = (copy: LocalCopy) =>
  `${copy.registrations.size} registration${copy.registrations.size === 1 ? '' : 's'}`;

const expired = (err: unknown) =>
  err instanceof RosterError && err.errors.some((e) => e.extensions?.code === 'CHANGES_EXPIRED');

export interface SyncOptions {
  /** Registrations and changes per request (`first:`). */
  pageSize: number;
  /** Stores the copy: called after a whole read and after each page of changes. */
  save: (copy: LocalCopy) => Promise<void>;
  print: (line: string) => void;
}

/**
 * One catch-up of the copy of `slug`: resumes the stored copy from its cursor; reads the event whole when
 * there is no copy yet (or it is of another event or Roster), or when its cursor has expired.
 */
export async function syncOnce(
  roster: Roster,
  slug: string,
  stored: LocalCopy | null,
  { pageSize, save, print }: SyncOptions,
): Promise<{ copy: LocalCopy; report: SyncReport }> {
  let reason: string | null = null;
  if (!stored) reason = 'no local copy yet';
  else if (stored.roster !== roster.url) reason = 'the local copy is of another Roster';
  else if (stored.event !== slug) reason = 'the local copy is of another event';
  for (;;) {
    let copy: LocalCopy;
    if (reason || !stored) {
      copy = await readWhole(roster, slug, pageSize);
      print(`Read ${slug} whole (${reason}): ${count(copy)}`);
      await save(copy);
    } else copy = stored;
    try {
      return { copy, report: { readWhole: reason, applied: await catchUp(roster, copy, pageSize, save, print) } };
    } catch (err) {
      // Expired again right after a whole read: the retention is shorter than a catch-up; say so.
      if (!expired(err) || reason) throw err;
      // The feed no longer holds every change after the cursor: start over from the current state.
      reason = 'the stored cursor has expired: CHANGES_EXPIRED';
    }
  }
}
