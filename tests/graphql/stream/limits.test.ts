import { encodeChangeCursor } from '../../../src/graphql/pagination.js';
import { useSeededServer } from '../../helpers/fixtures.js';
import { until } from '../../helpers/wait.js';
import { closeStreams, metric, openStream, type RawStream } from '../../helpers/streams.js';

// Streams open at one instance are limited per token owner and in all: past either, a 429 TOO_MANY_STREAMS
// with Retry-After before anything else is done; a stream that ends, however, gives its slot back. /metrics
// shows the streams open, the results written and the refusals.
const t = useSeededServer({ STREAMS_PER_OWNER: '2', STREAMS_MAX: '4' });
afterEach(closeStreams);

const QUERY = { query: 'subscription { changes { cursor } }' };
const open = (token: keyof typeof t.fx.tokens, headers: Record<string, string> = {}) =>
  openStream(t.server, t.fx.tokens[token], QUERY, headers);

function expectTooMany(stream: RawStream, says: RegExp): void {
  expect(stream.status).toBe(429);
  expect(Number(stream.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = JSON.parse(stream.text!) as { errors: { message: string; extensions: { code: string } }[] };
  expect(body.errors[0]!.extensions.code).toBe('TOO_MANY_STREAMS');
  expect(body.errors[0]!.message).toMatch(says);
}

/** Opens a stream for `token` again and again until one is let in (its slots are freed as closes land). */
async function openOnceFreed(token: keyof typeof t.fx.tokens): Promise<RawStream> {
  let stream: RawStream | undefined;
  await until(
    async () => {
      stream = await open(token);
      return stream.status === 200;
    },
    `a slot freed for ${token}`,
    5000,
  );
  return stream!;
}

const live = () => metric(t.server, 'roster_live_streams');
const refused = (reason: string) => metric(t.server, `roster_rejections_total{reason="stream_limit_${reason}"}`);

test('per owner: the third stream is a 429, another owner still opens; closing one frees its slot', async () => {
  const [first, second] = [await open('organizerUser'), await open('organizerUser')];
  expect([first.status, second.status]).toEqual([200, 200]);
  const before = await refused('owner');
  expectTooMany(await open('organizerUser'), /2 streams open/);
  expect(await refused('owner')).toBe(before + 1);
  // The same user at another app, or the app itself, is another owner.
  const app = await open('organizerApp');
  expect(app.status).toBe(200);
  expect(await live()).toBe(3);
  first.close();
  const again = await openOnceFreed('organizerUser');
  expect(again.status).toBe(200);
  expect(second.done).toBe(false);
});

test('per instance: past STREAMS_MAX every owner gets a 429, until a stream closes', async () => {
  await until(async () => (await live()) === 0, 'the streams of earlier tests closed', 5000);
  const streams = [await open('organizerUser'), await open('organizerApp'), await open('otherApp')];
  streams.push(await open('otherUser'));
  expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
  expect(await live()).toBe(4);
  const before = await refused('instance');
  const refusedHere = await open('organizerUser');
  expectTooMany(refusedHere, /as many streams as it may/);
  expect(await refused('instance')).toBe(before + 1);
  streams[3]!.close();
  await openOnceFreed('otherUser');
  expect(await live()).toBe(4);
  closeStreams();
  await until(async () => (await live()) === 0, 'every slot freed', 5000);
});

test('a stream that ends on its own gives its slot back; so does a refused document', async () => {
  await until(async () => (await live()) === 0, 'the streams of earlier tests closed', 5000);
  const pastHead = { 'Last-Event-ID': encodeChangeCursor(1_000_000_000) };
  for (let i = 0; i < 3; i++) {
    const ended = await open('organizerUser', pastHead);
    expect(ended.status).toBe(200);
    await ended.ended;
    const refusedDoc = await openStream(t.server, t.fx.tokens.organizerUser, { query: '{ viewer { tokenKind } }' });
    expect(refusedDoc.status).toBe(400);
  }
  const [a, b] = [await openOnceFreed('organizerUser'), await openOnceFreed('organizerUser')];
  expect([a.status, b.status]).toEqual([200, 200]);
});

test('/metrics: open streams, and every result written', async () => {
  await until(async () => (await live()) === 0, 'the streams of earlier tests closed', 5000);
  const written = await metric(t.server, 'roster_live_events_total');
  const [a, b] = [await open('organizerUser'), await open('organizerApp')];
  expect(await live()).toBe(2);
  const user = await t.server.stores.users.create({ email: 'metrics@example.com', name: 'Metrics' });
  await t.server.stores.registrations.create(t.fx.publicEvent.id, user.id);
  await Promise.all([a.next(1, 2000), b.next(1, 2000)]);
  expect(await metric(t.server, 'roster_live_events_total')).toBe(written + 2);
  a.close();
  await until(async () => (await live()) === 1, 'the closed stream no longer counted', 5000);
});
