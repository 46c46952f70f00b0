import { useSeededServer } from '../../helpers/fixtures.js';
import { openStream, payloadOf } from '../../helpers/streams.js';

const t = useSeededServer();

test('a new registration reaches an open stream, its SSE id the change cursor', async () => {
  const stream = await openStream(t.server, t.fx.tokens.organizerUser);
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const started = Date.now();
  await t.server.stores.registrations.create(t.fx.publicEvent.id, t.fx.organizer.id);
  const [event] = await stream.next(1);
  expect(Date.now() - started).toBeLessThan(1000);
  expect(event!.event).toBe('next');
  const { data } = payloadOf(event!);
  expect(data!.changes).toMatchObject({ type: 'REGISTRATION_CREATED', eventSlug: 'public-meetup' });
  expect(event!.id).toBe(data!.changes.cursor);
  stream.close();
});
