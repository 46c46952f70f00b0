import {
  cliWrite,
  committed,
  expectWellFormed,
  keyOf,
  lateEvents,
  waitingOnLocks,
  openTimedStream,
  useStreamCluster,
  type TimedStream,
} from './helpers/stream-processes.js';
import { until } from './helpers/wait.js';

// Two instances on one database (SQLite in WAL mode, or PostgreSQL): a change written anywhere must reach both.
const c = useStreamCluster(2);
const pg = Boolean(process.env.TEST_DATABASE_URL);
const [a, b] = [() => c.instances[0]!, () => c.instances[1]!];

const viaCli = (args: string[]) => cliWrite(c.url, args);

async function subscribeAtBoth(): Promise<TimedStream[]> {
  const streams = [await openTimedStream(a().url, c.fx.userToken), await openTimedStream(b().url, c.fx.appToken)];
  expect(streams.map((s) => s.status)).toEqual([200, 200]);
  return streams;
}

const waitAll = (streams: TimedStream[], n: number, ms: number) => Promise.all(streams.map((s) => s.waitFor(n, ms)));

/** Registers guest `i` for the event: from this process, or from a CLI process. */
const register = (i: number) => committed(() => c.stores.registrations.create(c.fx.event.id, c.fx.guests[i]!.id));
const registerViaCli = (i: number) =>
  viaCli(['registration', 'create', '--event', 'live-event', '--user', c.fx.guests[i]!.email!]);

test('writes by this process and by CLI processes reach a subscriber at each instance within 1 s, alike', async () => {
  const { stores, fx } = c;
  const streams = await subscribeAtBoth();
  const commits: Record<string, number> = {};

  commits['REGISTRATION_CREATED Guest 0'] = await register(0);
  await waitAll(streams, 1, 5000);
  commits['REGISTRATION_CREATED Guest 1'] = await registerViaCli(1);
  await waitAll(streams, 2, 5000);
  commits['REGISTRANT_UPDATED Guest 0 renamed'] = await committed(() =>
    stores.users.update(fx.guests[0]!.id, { name: 'Guest 0 renamed' }),
  );
  await waitAll(streams, 3, 5000);

  // Writers at once, in three processes: both subscribers see the changes in the one order the log gives them.
  const made = ['event', 'create', '--slug', 'cli-made', '--name', 'By the CLI', '--organizer', fx.organizer.email!];
  const at = await Promise.all([
    register(2),
    viaCli(made),
    register(3),
    viaCli(['registration', 'delete', '--event', 'live-event', '--user', fx.guests[1]!.email!]),
    register(4),
  ]);
  const keys = ['CREATED Guest 2', 'EVENT_CREATED cli-made', 'CREATED Guest 3', 'DELETED Guest 1', 'CREATED Guest 4'];
  keys.forEach((key, i) => (commits[key.startsWith('EVENT') ? key : `REGISTRATION_${key}`] = at[i]!));
  await waitAll(streams, 8, 5000);
  // Nothing more arrives: each write made one change.
  await new Promise((resolve) => setTimeout(resolve, 300));

  const [atA, atB] = streams as [TimedStream, TimedStream];
  expect(atA.events).toHaveLength(8);
  expect(atA.events.map((e) => e.id)).toEqual(atB.events.map((e) => e.id));
  expect(atA.events.map(keyOf)).toEqual(atB.events.map(keyOf));
  expect(new Set(atA.events.map(keyOf))).toEqual(new Set(Object.keys(commits)));
  streams.forEach(expectWellFormed);
  expect(lateEvents(streams, commits, 1000)).toEqual([]);
  streams.forEach((s) => s.close());
}, 40_000);

test('a transaction held open delays its changes but loses none; a write queued behind it comes after', async () => {
  const { db, fx } = c;
  const guest = fx.guests[5]!;
  const streams = await subscribeAtBoth();
  let queued: Promise<number> | undefined;
  await db.transaction(async (trx) => {
    await trx('registrations').insert({ event_id: fx.event.id, user_id: guest.id, created_at: Date.now() });
    await trx('users').where('id', guest.id).update({ name: 'Guest 5 held', updated_at: Date.now() });
    // Another process writes meanwhile: it waits for the lock (seen waiting on PostgreSQL), then commits.
    queued = registerViaCli(6);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    if (pg) await until(async () => (await waitingOnLocks(db)) > 0, 'the CLI waits on the lock', 10_000);
    expect(streams.map((s) => s.events.length)).toEqual([0, 0]);
  });
  const heldCommit = Date.now();
  const commits = {
    'REGISTRATION_CREATED Guest 5 held': heldCommit,
    'REGISTRANT_UPDATED Guest 5 held': heldCommit,
    'REGISTRATION_CREATED Guest 6': await queued!,
  };
  await waitAll(streams, 3, 5000);
  for (const s of streams) expect(s.events.map(keyOf)).toEqual(Object.keys(commits));
  expect(streams[0]!.events.map((e) => e.id)).toEqual(streams[1]!.events.map((e) => e.id));
  streams.forEach(expectWellFormed);
  expect(lateEvents(streams, commits, 1000)).toEqual([]);
  streams.forEach((s) => s.close());
}, 30_000);

/** PostgreSQL: the backends of this database listening for change notifications. */
async function listeners(): Promise<number[]> {
  const result = await c.db.raw<{ rows: { pid: number }[] }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
  );
  return result.rows.map((r) => r.pid);
}

// SQLite has no notifications to lose: its instances poll, which the tests above cover.
if (pg) {
  test('a notification lost with its listener delays changes but loses none; the listener comes back', async () => {
    const streams = await subscribeAtBoth();
    await until(async () => (await listeners()).length === 2, 'one listener per instance', 5000);
    const before = await listeners();

    const killed = await c.db.raw<{ rows: { gone: boolean }[] }>(
      `SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
       WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
    );
    expect(killed.rows.map((r) => r.gone)).toEqual([true, true]);
    // At once, while nobody listens: these notifications go nowhere.
    const commits: Record<string, number> = {};
    commits['REGISTRATION_CREATED Guest 7'] = await register(7);
    commits['REGISTRATION_CREATED Guest 8'] = await register(8);
    await waitAll(streams, 2, 5000);
    expect(lateEvents(streams, commits, 2500)).toEqual([]);

    await until(
      async () => {
        const now = await listeners();
        return now.length === 2 && now.every((pid) => !before.includes(pid));
      },
      'both instances listening again, on new connections',
      5000,
    );
    commits['REGISTRATION_CREATED Guest 9'] = await register(9);
    await waitAll(streams, 3, 5000);
    expect(lateEvents(streams, commits, 1000, 2)).toEqual([]);
    expect(streams[0]!.events.map((e) => e.id)).toEqual(streams[1]!.events.map((e) => e.id));
    streams.forEach(expectWellFormed);
    streams.forEach((s) => s.close());
  }, 30_000);
}
