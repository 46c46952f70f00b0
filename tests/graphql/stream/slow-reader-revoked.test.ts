import { request } from 'node:http';
import { addRegistrants, useSeededServer } from '../../helpers/fixtures.js';

// A large budget: the point is what a stream shows after its token is revoked, not what it costs.
const t = useSeededServer({ RATE_LIMIT_POINTS: '10000000', STREAM_STALL_MS: '60000' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Each change carries the event's registrants' names, read when the change is sent: a big message.
const QUERY = `subscription { changes(types: [REGISTRATION_CREATED]) {
  cursor event { registrations(first: 600) { nodes { registrant { name } } } } } }`;

test('a slow reader gets nothing read after its token was revoked', async () => {
  const { stores, db } = t.server;
  const made = await stores.apps.create({
    ownerId: t.fx.organizer.id,
    name: 'Slow',
    redirectUris: ['http://localhost:3000/cb'],
  });
  const { hostname, port } = new URL(t.server.url);
  const body = JSON.stringify({ query: QUERY });
  let text = '';
  let paused!: import('node:http').IncomingMessage;
  const opened = new Promise<void>((resolve) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/graphql/stream',
        method: 'POST',
        headers: {
          authorization: `Bearer ${made.appToken}`,
          accept: 'text/event-stream',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        expect(res.statusCode).toBe(200);
        paused = res;
        res.pause(); // the client takes nothing in: kernel buffers, then the server's queue, fill up
        res.setEncoding('utf8');
        resolve();
      },
    );
    req.end(body);
  });
  await opened;
  await sleep(300);
  await addRegistrants(t.server, t.fx.privateEvent.id, 600, { prefix: 'slow', name: 'Before' }); // 600 changes
  await sleep(3000); // the server has sent what buffers take, and waits for its client

  await stores.apps.rotateAppToken(made.app.id); // revoked: the stream must show nothing read from now on
  await db('users')
    .whereIn(
      'uid',
      Array.from({ length: 600 }, (_, i) => `u_slow_${i}`),
    )
    .update({ name: db.raw("'After' || substr(name, 7)") });

  paused.on('data', (c: string) => (text += c));
  paused.resume();
  let last = -1;
  while (text.length !== last) {
    last = text.length;
    await sleep(1500);
  }
  paused.destroy();
  const events = text.split('\n\n').filter((b) => b.includes('event: next'));
  const readAfterRevocation = events.filter((b) => b.includes('"After ')).length;
  expect({ events: events.length, readAfterRevocation }).toEqual({
    events: expect.any(Number),
    readAfterRevocation: 0,
  });
}, 120_000);
