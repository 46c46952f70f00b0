import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Following } from '../examples/live-checkin/follow.js';
import { main as liveMain } from '../examples/live-checkin/main.js';
import type { UserRow } from '../src/stores/types.js';
import { useSeededServer } from './helpers/fixtures.js';
import { gql } from './helpers/graphql.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';
import { until, within } from './helpers/wait.js';

// examples/live-checkin against the real server: a check-in list printed live from /graphql/stream, resumed
// from the cursor in its file after a stop, and from the last change it printed after a cut connection.

/** How long a committed change may take to be printed: Roster sends it within a second; slack for a busy CI. */
const PRINTED_WITHIN_MS = 5_000;
const t = useSeededServer();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'roster-live-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  lines: string[];
  following: Following;
}
/** Starts the example on public-meetup with the organizer's token; its lines are collected as printed. */
async function start(file: string, url = t.server.url): Promise<Run> {
  const lines: string[] = [];
  const env = { ROSTER_URL: url, ROSTER_TOKEN: t.fx.tokens.organizerUser, ROSTER_CHECKIN_FILE: file };
  const following = await liveMain(env, ['public-meetup'], (line) => lines.push(line));
  return { lines, following };
}
const stop = async (run: Run) => {
  run.following.stop();
  await within(5_000, 'the example stopped', run.following.done);
};
const storedCursor = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { cursor: string }).cursor;
/** Waits until the example printed `count` lines (the bound is per change printed). */
const printed = (run: Run, count: number) =>
  until(() => run.lines.length >= count, `line ${count} printed`, PRINTED_WITHIN_MS);

/** The cursors of public-meetup's registration changes after `after`, in order. */
async function cursorsAfter(after: string): Promise<string[]> {
  const query = `query($after: String) { changes(after: $after, event: "public-meetup",
    types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) { nodes { cursor } } }`;
  const res = await gql(t.server, t.fx.tokens.organizerUser, query, { after });
  return (res.body.data!.changes as { nodes: { cursor: string }[] }).nodes.map((n) => n.cursor);
}

let users = 0;
const newUser = (name: string): Promise<UserRow> =>
  t.server.stores.users.create({ email: `live${++users}@example.com`, name });
const register = (user: UserRow) => t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
const unregister = (user: UserRow) => t.server.stores.registrations.delete(t.fx.publicEvent.id, user.id);

describe('examples/live-checkin: a live check-in list over /graphql/stream, resumed from its stored cursor', () => {
  const file = () => join(dir, 'checkin.json');
  let first: Run;
  let ava: UserRow;
  let ben: UserRow;

  test('each registration and removal is printed as it is committed, in order; another event’s are not', async () => {
    first = await start(file());
    expect(first.lines).toEqual(['Check-in list of Public Meetup: registrations and removals from now on']);
    // The head is stored before the stream opens: from now on nothing is missed, even by a restart.
    const head = storedCursor(file());
    [ava, ben] = [await newUser('Ava Arrival'), await newUser('Ben Bright')];

    await register(ava);
    await printed(first, 2);
    await register(ben);
    await printed(first, 3);
    await t.server.stores.registrations.create(t.fx.privateEvent.id, ava.id);
    await unregister(ava);
    await printed(first, 4);
    expect(first.lines.slice(1)).toEqual(['+ Ava Arrival', '+ Ben Bright', '- Ava Arrival']);
    // The file holds the cursor of the last change printed.
    const cursors = await cursorsAfter(head);
    expect(cursors).toHaveLength(3);
    expect(storedCursor(file())).toBe(cursors.at(-1));
  });

  test('stopped and started again: exactly the changes made meanwhile, then live ones', async () => {
    await stop(first);
    const stored = storedCursor(file());
    const cy = await newUser('Cy Comeback');
    await register(cy);
    await unregister(ben);
    await register(ava);

    const second = await start(file());
    expect(second.lines[0]).toBe(`Check-in list of Public Meetup: resuming after ${stored} (from ${file()})`);
    await printed(second, 4);
    await register(await newUser('Dan Later'));
    await printed(second, 5);
    // In change order, so a duplicate of a missed change would have come before Dan's line.
    expect(second.lines.slice(1)).toEqual(['+ Cy Comeback', '- Ben Bright', '+ Ava Arrival', '+ Dan Later']);
    expect(storedCursor(file())).toBe((await cursorsAfter(stored)).at(-1));
    await stop(second);
  });

  test('a cut connection: it reconnects with Last-Event-ID and prints what it missed, once', async () => {
    const proxy = await startTcpProxy(t.server.url);
    const run = await start(join(dir, 'through-proxy.json'), proxy.url);
    try {
      const eve = await newUser('Eve Early');
      await register(eve);
      // Printed: the stream is open, through the proxy.
      await printed(run, 2);
      proxy.down();
      await until(() => run.lines.some((l) => l.startsWith('Stream interrupted')), 'the cut noticed');
      await unregister(eve);
      await register(await newUser('Fay Meanwhile'));
      proxy.up();
      await until(() => run.lines.filter((l) => !l.startsWith('Stream interrupted')).length >= 4, 'caught up');
      await register(await newUser('Gus Afterwards'));
      await until(() => run.lines.at(-1) === '+ Gus Afterwards', 'a live one after the catch-up', PRINTED_WITHIN_MS);
      expect(run.lines.filter((l) => !l.startsWith('Stream interrupted'))).toEqual([
        'Check-in list of Public Meetup: registrations and removals from now on',
        '+ Eve Early',
        '- Eve Early',
        '+ Fay Meanwhile',
        '+ Gus Afterwards',
      ]);
      expect(run.lines[2]).toMatch(/^Stream interrupted: reconnecting in \d+\.\d s, after \S+$/);
    } finally {
      await stop(run);
      await proxy.close();
    }
  });

  test('a stored cursor Roster never gave out: its 400 ends it at once, not retried', async () => {
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, JSON.stringify({ roster: t.server.url, event: 'public-meetup', cursor: 'not-a-cursor' }));
    const run = await start(forged);
    await expect(within(5_000, 'the refusal', run.following.done)).rejects.toMatchObject({
      status: 400,
      errors: [{ extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect(run.lines).toEqual([`Check-in list of Public Meetup: resuming after not-a-cursor (from ${forged})`]);
  });

  test('a stored cursor older than the changes kept: Roster’s CHANGES_EXPIRED ends it, with the file kept', async () => {
    const stale = join(dir, 'stale.json');
    writeFileSync(
      stale,
      JSON.stringify({ roster: t.server.url, event: 'public-meetup', cursor: storedCursor(file()) }),
    );
    await register(await newUser('Hal Pruned'));
    // Every change so far is past the retention now: the stored cursor is before the oldest kept.
    expect(await t.server.stores.changes.prune(Date.now() + 60_000)).toBeGreaterThan(0);
    const run = await start(stale);
    await expect(within(5_000, 'the refusal', run.following.done)).rejects.toMatchObject({
      errors: [{ extensions: { code: 'CHANGES_EXPIRED' } }],
    });
    expect(run.lines.slice(1)).toEqual([]);
    expect(JSON.parse(readFileSync(stale, 'utf8'))).toMatchObject({ event: 'public-meetup' });
  });
});
