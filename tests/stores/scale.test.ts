import { isSqlite } from '../../src/stores/dialect.js';
import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';
import { sqlDuring } from '../helpers/sql.js';

// Pagination at scale: the same plan and the same statements for page 1 and page N.
const t = useSeededServer();
const REGISTRANTS = 3000;

beforeAll(async () => {
  await addRegistrants(t.server, t.fx.privateEvent.id, REGISTRANTS, { prefix: 'scale', name: 'Scale' });
}, 60_000);

const PAGE = `query($first: Int, $after: String) { event(slug: "private-retreat") {
  registrations(first: $first, after: $after) { totalCount pageInfo { endCursor hasNextPage } nodes { registrant { name } } } } }`;

type Conn = {
  totalCount: number;
  pageInfo: { endCursor: string; hasNextPage: boolean };
  nodes: { registrant: { name: string } }[];
};

test('a late page runs the same statements as the first and returns the right rows', async () => {
  const conn = (res: Awaited<ReturnType<typeof gql>>) =>
    (res.body.data!.event as { registrations: Conn }).registrations;
  await gql(t.server, t.fx.tokens.organizerUser, PAGE, { first: 1 }); // the token's lookup is cached from here on
  const first = await sqlDuring(t.server.db, () => gql(t.server, t.fx.tokens.organizerUser, PAGE, { first: 100 }));
  let after = conn(first.result).pageInfo.endCursor;
  for (let i = 0; i < 25; i += 1) {
    after = conn(await gql(t.server, t.fx.tokens.organizerUser, PAGE, { first: 100, after })).pageInfo.endCursor;
  }
  const late = await sqlDuring(t.server.db, () =>
    gql(t.server, t.fx.tokens.organizerUser, PAGE, { first: 100, after }),
  );
  expect(late.sql).toHaveLength(first.sql.length);
  const page = conn(late.result);
  expect(page.totalCount).toBe(REGISTRANTS + 1);
  // Page 27 of 100 holds registrations 2601..2700; the fixture's own registrant came first.
  expect(page.nodes[0]!.registrant.name).toBe('Scale 2599');
  expect(page.nodes).toHaveLength(100);
});

test('the page statement is an index range scan, not a sort of the whole event', async () => {
  const { stores, db } = t.server;
  const { fx } = t;
  const { sql, bindings } = stores.registrations.pageStatement(fx.privateEvent.id, 101, 1500).toSQL();
  if (isSqlite(db)) {
    const plan = await db.raw<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, bindings);
    const text = plan.map((p) => p.detail).join('\n');
    expect(text).toMatch(/USING (COVERING )?INDEX registrations_event_id_id_index/);
    expect(text).not.toMatch(/TEMP B-TREE/);
  } else {
    await db.raw('ANALYZE registrations');
    const plan = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(`EXPLAIN ${sql}`, bindings);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    // The planner may walk the primary key when one event holds nearly every row; either way no sort.
    expect(text).toMatch(/Index (Only )?Scan using registrations_(event_id_id_index|pkey)/);
    expect(text).not.toMatch(/Sort/);
  }
});
