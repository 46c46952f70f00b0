import { useSeededServer } from '../../helpers/fixtures.js';
import { sqlDuring } from '../../helpers/sql.js';
import { closeStreams, nextsOf, openStream } from '../../helpers/streams.js';

// A change sent to many streams is looked up once for all of them: the statements it costs do not grow
// with the number of streams that receive it.
const t = useSeededServer({ STREAMS_PER_OWNER: '100' });
afterEach(closeStreams);

const SELECTION = `subscription { changes { cursor type event { slug name } registration { id }
  registrant { name email } } }`;

async function statementsForOneChange(streams: number): Promise<number> {
  const opened = await Promise.all(
    Array.from({ length: streams }, () => openStream(t.server, t.fx.tokens.organizerUser, { query: SELECTION })),
  );
  const { sql } = await sqlDuring(t.server.db, async () => {
    await t.server.stores.registrations.create(t.fx.publicEvent.id, t.fx.organizer.id);
    await Promise.all(opened.map((s) => s.next(1, 10_000)));
  });
  for (const s of opened) expect(nextsOf(s.events)).toHaveLength(1);
  await t.server.stores.registrations.delete(t.fx.publicEvent.id, t.fx.organizer.id);
  closeStreams();
  return sql.length;
}

test('one change to 40 streams costs the statements one stream costs, give or take the reader', async () => {
  const one = await statementsForOneChange(1);
  const many = await statementsForOneChange(40);
  expect(many).toBeLessThanOrEqual(one + 4);
}, 60_000);
