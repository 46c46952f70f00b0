import { encodeChangeCursor } from '../../../src/graphql/pagination.js';
import { addRegistrants, useSeededServer } from '../../helpers/fixtures.js';
import { openStream } from '../../helpers/streams.js';

const t = useSeededServer();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const used = async (token: string) => {
  const res = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { tokenKind } }' }),
  });
  await res.text();
  return Number(res.headers.get('x-ratelimit-used'));
};

test('resuming a stream costs what paging Query.changes over the same log costs: a point per window read', async () => {
  // 20,000 changes the other app may not see (registrations of a private event it does not organize).
  await addRegistrants(t.server, t.fx.privateEvent.id, 20_000, { prefix: 'scan', name: 'Scan' });
  const token = t.fx.tokens.otherApp;
  let windows = 0;
  const count = (q: { sql: string }) => {
    if (/from [`"]changes[`"] where [`"]position[`"] >/i.test(q.sql)) windows++;
  };
  const before = await used(token);
  t.server.db.on('query', count);
  for (let i = 0; i < 3; i++) {
    // From the oldest change kept: every window of the log is read, none of it shown, nothing sent.
    const stream = await openStream(
      t.server,
      token,
      { query: 'subscription { changes { cursor } }' },
      { 'last-event-id': encodeChangeCursor(0) },
    );
    expect(stream.status).toBe(200);
    await sleep(1500);
    stream.close();
  }
  t.server.db.off('query', count);
  await sleep(200);
  const paid = (await used(token)) - before - 1;
  // Query.changes reads at most one window (2,000 positions) per request, and each request costs at least a point.
  expect({ windowsRead: windows, pointsPaid: paid, withinBudget: windows <= paid }).toEqual({
    windowsRead: windows,
    pointsPaid: paid,
    withinBudget: true,
  });
}, 60_000);
