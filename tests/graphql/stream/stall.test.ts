import { connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { encodeChangeCursor } from '../../../src/graphql/pagination.js';
import { addRegistrants, seedFixtures, type Fixtures } from '../../helpers/fixtures.js';
import { gql } from '../../helpers/graphql.js';
import { startServer, type TestServer } from '../../helpers/harness.js';
import { metric, openStream, positionsOf } from '../../helpers/streams.js';
import { HEALTH_MS } from '../../helpers/timing.js';
import { until, within } from '../../helpers/wait.js';

// Streams under load. A client that stops reading while changes pour in: the server holds back (its stream
// waits for the client), ends the stream once the client took nothing in for STREAM_STALL_MS, keeps answering
// everyone else meanwhile, and holds no more in memory than a few buffers' worth. A client that reads a burst
// of changes gets them all without holding up anyone else.
let server: TestServer;
let fx: Fixtures;
const logs: { msg?: string; stallMs?: number }[] = [];
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line));
  });
  server = await startServer(
    { STREAM_STALL_MS: '1000', RATE_LIMIT_POINTS: '1000000000' },
    { logger: pino({ level: 'warn' }, stream) },
  );
  fx = await seedFixtures(server);
});
afterAll(() => server.close());

/** Changes a stalled client is behind: far more than any buffer holds. */
const CHANGES = 10_000;
/** Changes committed at once for a stream that reads them all. */
const BURST = 10_000;
/**
 * The longest the event loop may go without a turn while a stream catches up (a GC pause or a busy machine
 * included): this, or a quarter of the whole catch-up when a busy machine made that slow. A stream that
 * never yielded would hold it for all of the catch-up.
 */
const BLOCK_MS = 1000;
/** An event whose slug, name and location are as long as they may be. */
const LONG_EVENT = { slug: `long-${'s'.repeat(190)}`, name: 'n'.repeat(490), location: 'l'.repeat(195) };
/** The long event 30 times (the most aliases a document may have): about 27 kB of JSON a change, read once a batch. */
const WIDE = `subscription { changes { cursor ${Array.from(
  { length: 30 },
  (_, i) => `e${i}: event { slug name location }`,
).join(' ')} } }`;

/** Sends the stream request by hand on a raw socket; resolves once the 200's headers and first comment came. */
function openRawStream(
  token: string,
  lastEventId: string,
): Promise<{ socket: Socket; head: string; closed: Promise<void> }> {
  const { hostname, port } = new URL(server.url);
  const body = JSON.stringify({ query: WIDE });
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {}); // a reset is one way for the server to end it
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /graphql/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nLast-Event-ID: ${lastEventId}\r\n` +
      `Accept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return within(
    5000,
    'the stream opened',
    new Promise((resolve) => {
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString();
        if (!head.includes('\r\n\r\n') || !head.includes(':\n\n')) return;
        socket.off('data', onData);
        // From here on the client takes nothing in.
        socket.pause();
        resolve({ socket, head, closed });
      };
      socket.on('data', onData);
    }),
  );
}

test('a client that stops reading: its stream ends within a bound, others are served, memory stays bounded', async () => {
  const event = await server.stores.events.create({ ...LONG_EVENT, organizerIds: [fx.organizer.id] });
  const mark = encodeChangeCursor(await server.stores.changes.head());
  await addRegistrants(server, event.id, CHANGES, { prefix: 'stall', name: 'Stall' });
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  try {
    // It resumes from before all of them, then takes in nothing more than the headers.
    const opened = performance.now();
    const { socket, head, closed } = await openRawStream(fx.tokens.organizerUser, mark);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    let slowest = 0;
    let asked = 0;
    await until(
      async () => {
        const started = performance.now();
        const res = await gql(server, fx.tokens.otherUser, '{ event(slug: "public-meetup") { name } }');
        expect(res.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        asked++;
        return (await metric(server, 'roster_live_streams')) === 0;
      },
      'the stalled stream ended',
      20_000,
    );
    expect(performance.now() - opened).toBeGreaterThanOrEqual(1000);
    expect(asked).toBeGreaterThan(1);
    expect(slowest).toBeLessThan(HEALTH_MS);
    expect(server.services.live.open).toBe(0);
    expect(logs.filter((l) => l.msg === 'stream client stalled; ended')).toEqual([
      expect.objectContaining({ stallMs: 1000 }),
    ]);

    // The client, reading again, finds its connection closed: what it gets is cut short, never completed.
    let rest = '';
    socket.on('data', (chunk: Buffer) => (rest += chunk.toString()));
    socket.resume();
    await within(10_000, 'the connection closed', closed);
    expect(rest).not.toMatch(/event: complete/);
    const sent = (rest.match(/^event: next$/gm) ?? []).length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(CHANGES / 2);
  } finally {
    clearInterval(sampler);
  }
  // What the server holds for it is bounded by the socket's buffers and a few dozen changes (about 27 kB
  // each): queueing all of them would take some 270 MB.
  expect(rssPeak - rssBefore).toBeLessThan(100 * 1024 * 1024);
}, 45_000);

test('a stream catching up a burst of changes does not hold up other requests', async () => {
  const stream = await openStream(server, fx.tokens.organizerApp, { query: 'subscription { changes { cursor } }' });
  await addRegistrants(server, fx.publicEvent.id, BURST, { prefix: 'burst', name: 'Burst' });
  // How long this process (server and client alike) went without a turn of its event loop.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let slowest = 0;
  let answered = 0;
  const catchUpStarted = performance.now();
  try {
    await until(
      async () => {
        const started = performance.now();
        const res = await gql(server, fx.tokens.otherUser, '{ event(slug: "public-meetup") { name } }');
        expect(res.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        answered++;
        return stream.events.length >= BURST;
      },
      'the stream caught up',
      60_000,
    );
  } finally {
    delay.disable();
  }
  const catchUpMs = performance.now() - catchUpStarted;
  expect(delay.max / 1e6).toBeLessThan(Math.max(BLOCK_MS, catchUpMs / 4));
  // Answered while the stream caught up, not once it was done.
  expect(answered).toBeGreaterThan(1);
  expect(slowest).toBeLessThan(HEALTH_MS);
  const positions = positionsOf(stream.events);
  expect(positions).toHaveLength(BURST);
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
  stream.close();
}, 90_000);
