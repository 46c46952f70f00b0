import { createClient } from 'graphql-sse';
import { DRAIN_LIMIT_MS } from '../src/http/shutdown.js';
import { holdRequest } from './helpers/held-request.js';
import type { ServerProcess } from './helpers/process.js';
import {
  changeOf,
  cliWrite,
  committed,
  expectWellFormed,
  keyOf,
  lateEvents,
  waitingOnLocks,
  openTimedStream,
  startBalancer,
  useStreamCluster,
} from './helpers/stream-processes.js';
import { SUBSCRIBE } from './helpers/streams.js';
import { until, within } from './helpers/wait.js';

// Instances stopped in turn (A, then C with B taking over, then B): clients must resume elsewhere, losing nothing.
const DELAY_MS = 3000;
const c = useStreamCluster(3, { SHUTDOWN_DELAY_MS: String(DELAY_MS) });
const [a, b, instanceC] = [0, 1, 2].map((i) => () => c.instances[i]!) as [
  () => ServerProcess,
  () => ServerProcess,
  () => ServerProcess,
];
const pg = Boolean(process.env.TEST_DATABASE_URL);

const streamHeaders = (token: string) => ({
  accept: 'text/event-stream',
  'content-type': 'application/json',
  authorization: `Bearer ${token}`,
});

/** The process's exit: its code and signal, and when. */
const exitOf = (server: ServerProcess) =>
  new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    server.proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );

const register = (guest: number) =>
  committed(() => c.stores.registrations.create(c.fx.event.id, c.fx.guests[guest]!.id));
const registerViaCli = (guest: number) =>
  cliWrite(c.url, ['registration', 'create', '--event', 'live-event', '--user', c.fx.guests[guest]!.email!]);
const key = (guest: number) => `REGISTRATION_CREATED Guest ${guest}`;

test('SIGTERM ends the streams cleanly at once; the client resumes at another instance from its last id', async () => {
  const { fx } = c;
  const [userAtA, appAtA] = [await openTimedStream(a().url, fx.userToken), await openTimedStream(a().url, fx.appToken)];
  // A subscriber at B throughout: what "every change" is.
  const control = await openTimedStream(b().url, fx.userToken);
  const commits: Record<string, number> = {};
  for (const guest of [0, 1, 2]) commits[key(guest)] = await register(guest);
  await Promise.all([userAtA, appAtA, control].map((s) => s.waitFor(3, 5000)));

  const exited = exitOf(a());
  const signalled = Date.now();
  a().proc.kill('SIGTERM');
  // A stream's end says A took the signal; it keeps serving for the delay: a new stream is refused, with a Retry-After.
  await within(DELAY_MS, 'a stream ends', Promise.race([userAtA.ended, appAtA.ended]));
  const [refused, readiness] = await Promise.all([
    openTimedStream(a().url, fx.userToken),
    fetch(`${a().url}/readyz`).then((res) => res.status),
  ]);
  expect(Date.now() - signalled).toBeLessThan(DELAY_MS);
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(JSON.parse(refused.text!)).toMatchObject({ errors: [{ extensions: { code: 'SHUTTING_DOWN' } }] });
  expect(readiness).toBe(503);

  const ends = await within(DELAY_MS, 'the streams end', Promise.all([userAtA.ended, appAtA.ended]));
  for (const [i, stream] of [userAtA, appAtA].entries()) {
    // The body ended as HTTP ends one, with no `complete`: a client reconnects rather than stops.
    expect(ends[i]!.how).toBe('clean');
    expect(ends[i]!.at - signalled).toBeLessThan(DELAY_MS);
    expect(stream.events.map((e) => e.event)).toEqual(['next', 'next', 'next']);
    expect(stream.events.map((e) => e.id)).toEqual(control.events.map((e) => e.id));
    expect(stream.comments.join('\n')).toMatch(/shutting down/);
    expectWellFormed(stream);
  }

  // Written while the client is away, by this process and by a CLI process.
  commits[key(3)] = await register(3);
  commits[key(4)] = await registerViaCli(4);
  const exit = await within(DELAY_MS + DRAIN_LIMIT_MS, 'the process exits', exited);
  expect(exit).toMatchObject({ code: 0, signal: null });
  // It served for the delay, then had nothing left to drain.
  expect(exit.at - signalled).toBeGreaterThanOrEqual(DELAY_MS - 50);
  expect(exit.at - signalled).toBeLessThan(DELAY_MS + DRAIN_LIMIT_MS / 2);

  const lastId = userAtA.events.at(-1)!.id!;
  const resumed = await openTimedStream(b().url, fx.userToken, { 'last-event-id': lastId });
  expect(resumed.status).toBe(200);
  await resumed.waitFor(2, 5000);
  commits[key(5)] = await register(5);
  await Promise.all([resumed.waitFor(3, 5000), control.waitFor(6, 5000)]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Exactly what was committed after its last id: the missed ones first, then the live one, none twice.
  expect(resumed.events.map((e) => e.id)).toEqual(control.events.slice(3).map((e) => e.id));
  expect(resumed.events.map(keyOf)).toEqual([key(3), key(4), key(5)]);
  expectWellFormed(resumed);
  expect(lateEvents([resumed], commits, 1000, 2)).toEqual([]);
  [resumed, control].forEach((s) => s.close());
}, 40_000);

test('the graphql-sse client through a balancer survives an instance stopping, seeing each change once', async () => {
  const { fx } = c;
  let target = instanceC().url;
  const balancer = await startBalancer(() => target);
  const control = await openTimedStream(b().url, fx.appToken);
  const seen: string[] = [];
  let last: string | undefined;
  let connections = 0;
  const client = createClient({
    url: `${balancer.url}/graphql/stream`,
    // The app's own record of where it is: the cursor of the last change it took in.
    headers: () => ({ authorization: `Bearer ${fx.appToken}`, ...(last ? { 'last-event-id': last } : {}) }),
    retryAttempts: 50,
    retry: () => new Promise((resolve) => setTimeout(resolve, 100)),
    on: { connected: () => void connections++ },
  });
  let failed: unknown;
  const unsubscribe = client.subscribe<{ changes: { cursor: string } }>(
    { query: SUBSCRIBE },
    {
      next: (result) => {
        const cursor = result.data!.changes.cursor;
        seen.push(cursor);
        last = cursor;
      },
      error: (err) => (failed = err),
      complete: () => (failed = new Error('the subscription completed')),
    },
  );
  try {
    await until(() => connections === 1, 'the client connected', 5000);
    for (const guest of [6, 7]) await register(guest);
    await until(() => seen.length === 2, 'the first changes reached the app', 5000);

    const exited = exitOf(instanceC());
    instanceC().proc.kill('SIGTERM');
    // Committed while the client is away; the balancer still sends it to C for a moment (503s), then to B.
    await register(8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    target = b().url;
    await register(9);
    await until(() => connections >= 2, 'the client reconnected', 5000);
    await register(10);
    await until(() => seen.length >= 5 || failed !== undefined, 'every change reached the app', 5000);
    await control.waitFor(5, 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(failed).toBeUndefined();
    expect(seen).toEqual(control.events.map((e) => changeOf(e).cursor));
    expect(control.events.map(keyOf)).toEqual([6, 7, 8, 9, 10].map(key));
    // It came back at B once, from where it was: the cursor of a change it had before C ended its stream.
    const resumed = balancer.served.filter((r) => r.to === b().url);
    expect(resumed).toHaveLength(1);
    expect(seen.slice(1, 3)).toContain(resumed[0]!.lastEventId);
    expect(await within(DELAY_MS + DRAIN_LIMIT_MS, 'C exits', exited)).toMatchObject({ code: 0, signal: null });
  } finally {
    unsubscribe();
    client.dispose();
    control.close();
    await balancer.close();
  }
}, 40_000);

/** PostgreSQL: holds an exclusive lock on the change log until released, so that reading it waits. */
async function lockChangeLog(): Promise<{ release(): Promise<void> }> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => {};
  const taken = new Promise<void>((resolve) => (locked = resolve));
  const done = c.db.transaction(async (trx) => {
    await trx.raw('LOCK TABLE changes IN ACCESS EXCLUSIVE MODE');
    locked();
    await released;
  });
  await Promise.race([taken, done]);
  return { release: () => (release(), done) };
}

test('stream requests under way when SIGTERM comes are refused too, and the instance still exits at once', async () => {
  const { fx } = c;
  // Past the first checks, its body still on the way.
  const held = holdRequest(
    `${b().url}/graphql/stream`,
    streamHeaders(fx.userToken),
    JSON.stringify({ query: SUBSCRIBE }),
  );
  await within(5000, 'the held request reached B', held.started);
  await new Promise((resolve) => setTimeout(resolve, 500));
  // PostgreSQL: one more inside the subscription's setup, its read of where the log stands waiting on a lock.
  const lock = pg ? await lockChangeLog() : undefined;
  const settingUp = lock && openTimedStream(b().url, fx.userToken);
  if (lock) await until(async () => (await waitingOnLocks(c.db)) > 0, 'a stream request waits on the lock', 5000);

  const exited = exitOf(b());
  const signalled = Date.now();
  b().proc.kill('SIGTERM');
  await until(async () => (await fetch(`${b().url}/readyz`)).status === 503, 'B says it is not ready', DELAY_MS);
  held.release();
  const late = await within(DELAY_MS, 'the held stream request is answered', held.answer);
  expect(late.status).toBe(503);
  expect(Number(late.headers['retry-after'])).toBeGreaterThan(0);
  expect(JSON.parse(late.body)).toMatchObject({ errors: [{ extensions: { code: 'SHUTTING_DOWN' } }] });
  if (lock) {
    const refused = await within(DELAY_MS, 'the stream request in setup is answered', settingUp!).finally(() =>
      lock.release(),
    );
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text!)).toMatchObject({ errors: [{ extensions: { code: 'SHUTTING_DOWN' } }] });
  }
  const exit = await within(DELAY_MS + DRAIN_LIMIT_MS, 'B exits', exited);
  expect(exit).toMatchObject({ code: 0, signal: null });
  // Nothing was left open to drain: it stops right after the delay, far from the drain limit.
  expect(exit.at - signalled).toBeLessThan(DELAY_MS + DRAIN_LIMIT_MS / 2);
}, 30_000);
