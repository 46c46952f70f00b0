import { encodeChangeCursor, encodeCursor } from '../../src/graphql/pagination.js';
import { WINDOW } from '../../src/services/change-feed.js';
import { changeFeed, FEED } from '../helpers/changes.js';
import { addRegistrants, useSeededServer } from '../helpers/fixtures.js';
import { gql } from '../helpers/graphql.js';

// Query.changes refuses what it cannot answer with a clear error, never a 5xx: hostile arguments
// (BAD_USER_INPUT, as the other connections do), a cursor older than the changes kept (CHANGES_EXPIRED);
// and a viewer that may see little of many changes still moves on.
const t = useSeededServer();
const { feed, head, refusal } = changeFeed(t);

describe('hostile arguments: a clear BAD_USER_INPUT, never a 5xx', () => {
  const chg = (text: string) => Buffer.from(text).toString('base64url');
  test.each([
    ['garbage', 'garbage!'],
    ['empty', ''],
    ['an events cursor', encodeCursor(1, 'evt')],
    ['a registrations cursor', encodeCursor(1, 'reg')],
    ['a negative position', chg('chg:-1')],
    ['a fraction', chg('chg:1.5')],
    ['a number past 2^53', chg('chg:99999999999999999999')],
    ['an exponent', chg('chg:1e3')],
    ['10 kB', 'a'.repeat(10_240)],
    ['a position past the head', encodeChangeCursor(1_000_000_000)],
  ])('after: %s', async (_name, after) => {
    const { status, error } = await refusal({ after });
    expect(status).toBe(200);
    expect(error).toMatchObject({ path: ['changes'], extensions: { code: 'BAD_USER_INPUT', argumentName: 'after' } });
    expect(error.message).toBe('`after` is not a cursor of `changes` this API gave out.');
  });

  test.each([1001, -1])('first: %d', async (first) => {
    const { status, error } = await refusal({ first });
    expect(status).toBe(200);
    expect(error).toMatchObject({
      message: `\`first\` must be between 0 and 1000, got ${first}.`,
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  test.each([
    [2 ** 31 - 1, 400, 'QUERY_TOO_COMPLEX'],
    [2 ** 31, 400, 'QUERY_TOO_COMPLEX'],
    ['ten', 200, 'BAD_USER_INPUT'],
  ])('first: %p is refused before it runs (%d %s)', async (first, status, code) => {
    const res = await gql(t.server, t.fx.tokens.organizerUser, FEED, { first });
    expect(res.status).toBe(status);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0]!.extensions!.code).toBe(code);
  });

  test('event: 10 kB', async () => {
    const { status, error } = await refusal({ event: 'e'.repeat(10_240) });
    expect(status).toBe(200);
    expect(error).toMatchObject({ path: ['changes'], extensions: { code: 'BAD_USER_INPUT', argumentName: 'event' } });
  });

  test.each([
    ['application/json', 200],
    ['application/graphql-response+json', 400],
  ])('types with an unknown value (%s): a validation error, %d', async (accept, status) => {
    const literal = await gql(
      t.server,
      t.fx.tokens.organizerUser,
      '{ changes(types: [NOPE]) { nodes { id } } }',
      undefined,
      accept,
    );
    expect(literal.status).toBe(status);
    expect(literal.body.data).toBeUndefined();
    expect(literal.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const variable = await refusal({ types: ['NOPE'] }, accept);
    expect(variable.status).toBe(status);
    expect(variable.error.extensions!.code).toBe('BAD_USER_INPUT');
  });
});

describe('a viewer that may see little', () => {
  const position = (cursor: string) => Number(Buffer.from(cursor, 'base64url').toString().slice(4));

  test('a page reads one window of positions: an empty page still moves endCursor on, so it never loops', async () => {
    const h = await head();
    await addRegistrants(t.server, t.fx.privateEvent.id, WINDOW + 100, { prefix: 'many', name: 'Many' });
    const end = await head();
    const first = await feed('otherApp', { after: h, first: 10 });
    expect(first.nodes).toEqual([]);
    expect(position(first.pageInfo.endCursor)).toBe(position(h) + WINDOW);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await feed('otherApp', { after: first.pageInfo.endCursor, first: 10 });
    expect(second).toMatchObject({ nodes: [], pageInfo: { endCursor: end, hasNextPage: false } });
    // The organizer pages through the same window and sees every change of it.
    const mine = await feed('organizerUser', { after: h, first: 1000 });
    expect(mine.nodes).toHaveLength(1000);
  });

  test('hasNextPage says whether the log goes on, not whether more matching changes exist', async () => {
    const h = await head();
    await t.server.stores.events.update(t.fx.publicEvent.id, {
      slug: t.fx.publicEvent.slug,
      name: 'Public Meetup, renamed',
    });
    await t.server.stores.events.update(t.fx.privateEvent.id, {
      slug: t.fx.privateEvent.slug,
      name: 'Private Retreat, renamed',
    });
    // The outsider sees the public rename; what follows it is another event's, and hidden from it.
    const page = await feed('otherApp', { after: h, first: 1, event: t.fx.publicEvent.slug });
    expect(page.nodes.map((n) => n.type)).toEqual(['EVENT_UPDATED']);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await feed('otherApp', { after: page.pageInfo.endCursor, first: 1, event: t.fx.publicEvent.slug });
    expect(rest).toMatchObject({ nodes: [], pageInfo: { endCursor: await head(), hasNextPage: false } });
  });

  test('what an outsider gets for a private event’s slug is what it gets for a slug no event has', async () => {
    await addRegistrants(t.server, t.fx.privateEvent.id, WINDOW + 100, { prefix: 'more', name: 'More' });
    const end = await head();
    for (const after of [
      undefined,
      encodeChangeCursor(position(end) - WINDOW - 50),
      encodeChangeCursor(position(end) - 5),
    ]) {
      for (const token of ['otherApp', 'otherUser'] as const) {
        const hidden = await feed(token, { after, first: 1, event: t.fx.privateEvent.slug });
        const none = await feed(token, { after, first: 1, event: 'no-such-event' });
        expect(hidden.pageInfo).toEqual(none.pageInfo);
        const typed = await feed(token, { after, first: 1, types: ['REGISTRATION_CREATED'] });
        expect(typed.nodes).toEqual([]);
        expect(typed.pageInfo).toEqual(none.pageInfo);
      }
    }
  });
});

describe('CHANGES_EXPIRED', () => {
  test('a cursor before the changes kept is refused with its own code, as BAD_USER_INPUT is', async () => {
    const oldest = (await feed('organizerUser', { first: 1 })).nodes[0]!.cursor;
    const end = await head();
    await t.server.stores.changes.prune(Date.now() + 60_000);
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const expired = await refusal({ after: oldest }, accept);
      const bad = await refusal({ after: 'garbage!' }, accept);
      expect(expired.status).toBe(bad.status);
      expect(expired.error).toMatchObject({ path: ['changes'], extensions: { code: 'CHANGES_EXPIRED' } });
      expect(expired.error.message).toMatch(/30 days.*changes\(first: 0\)/);
    }
    // From the oldest kept: nothing, ending at the head, which is not refused.
    const fresh = await feed('organizerUser');
    expect(fresh).toMatchObject({ nodes: [], pageInfo: { endCursor: end, hasNextPage: false } });
    expect((await feed('organizerUser', { after: end })).nodes).toEqual([]);
    expect(await head()).toBe(end);
  });
});
