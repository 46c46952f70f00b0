import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execute } from '../client/roster.js';
import { loadCursor, saveCursor, type StoredCursor } from './cursor-file.js';
import { follow, type Change, type Following } from './follow.js';
import { CheckinStartQuery } from './operations.js';

const USAGE = 'Usage: node dist/examples/live-checkin/main.js EVENT_SLUG';

/** One line of the list: who registered (+) or whose registration was removed (-). */
export function describe(change: Change): string {
  const sign = change.type === 'REGISTRATION_CREATED' ? '+' : '-';
  // Null: the registrant is gone (their user deleted) or no longer visible to this token.
  return `${sign} ${change.registrant?.name ?? 'a registrant no longer shown'}`;
}

/**
 * Prints one event's check-in list live: each registration added or removed, as it happens, until stopped.
 * The cursor of the last change printed is kept in a file, so a run after a stop first prints what it missed.
 */
export async function main(env: NodeJS.ProcessEnv, args: string[], print: (line: string) => void): Promise<Following> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const slug = positionals[0];
  if (positionals.length !== 1 || !slug) throw new Error(USAGE);
  const token = env.ROSTER_TOKEN;
  if (!token) throw new Error('Set ROSTER_TOKEN to a token of one of the event’s organizers (examples/README.md).');
  const roster = { url: env.ROSTER_URL ?? 'http://localhost:4000', token };
  const file = env.ROSTER_CHECKIN_FILE ?? `roster-checkin-${slug}.json`;

  const start = await execute(roster, CheckinStartQuery, { event: slug });
  if (!start.event) throw new Error(`No event ${slug} (or this token may not see it).`);
  let stored: StoredCursor | null = loadCursor(file);
  if (stored && (stored.roster !== roster.url || stored.event !== slug)) {
    print(`${file} is of another event or another Roster: not resumed`);
    stored = null;
  }
  if (stored) {
    print(`Check-in list of ${start.event.name}: resuming after ${stored.cursor} (from ${file})`);
  } else {
    // The head is stored before anything else: what happens from now on is printed, even while stopped.
    stored = { roster: roster.url, event: slug, cursor: start.changes.pageInfo.endCursor };
    saveCursor(file, stored);
    print(`Check-in list of ${start.event.name}: registrations and removals from now on`);
  }
  const where = stored;
  return follow(
    roster,
    slug,
    where.cursor,
    (change) => {
      print(describe(change));
      saveCursor(file, { ...where, cursor: change.cursor });
    },
    print,
  );
}

// Run as a program (not when a test imports it): Ctrl-C closes the stream, and the program ends.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.env, process.argv.slice(2), (line) => console.log(line))
    .then((following) => {
      process.once('SIGINT', () => following.stop());
      process.once('SIGTERM', () => following.stop());
      return following.done;
    })
    .catch((err: Error) => {
      console.error(err.message);
      process.exitCode = 1;
    });
}
