import { useSeededServer } from '../helpers/fixtures.js';
import { changeFeed } from '../helpers/changes.js';
import { sqlDuring } from '../helpers/sql.js';

// A page's visibility is decided for all its changes at once: the statements do not grow with its events.
const t = useSeededServer();
const { feed, head } = changeFeed(t);

test('a page of changes over 40 events runs as many statements as a page over 4', async () => {
  const statementsFor = async (events: number) => {
    const from = await head();
    for (let i = 0; i < events; i++) {
      await t.server.stores.events.create({
        slug: `batch-${events}-${i}`,
        name: `Batch ${i}`,
        visibility: i % 2 ? 'private' : 'public',
        organizerIds: [i % 3 ? t.fx.organizer.id : t.fx.other.id],
      });
    }
    const { result, sql } = await sqlDuring(t.server.db, () => feed('organizerUser', { after: from, first: 100 }));
    // Public ones, and the private ones the organizer organizes (i odd and not a multiple of 3).
    const expected = Array.from({ length: events }, (_, i) => i % 2 === 0 || i % 3 !== 0).filter(Boolean).length;
    expect(result.nodes.filter((n) => n.type === 'EVENT_CREATED')).toHaveLength(expected);
    return sql.length;
  };
  const few = await statementsFor(4);
  const many = await statementsFor(40);
  expect(many).toBe(few);
});
