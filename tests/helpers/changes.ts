import type { Fixtures } from './fixtures.js';
import { gql } from './graphql.js';
import type { TestServer } from './harness.js';

/** Query.changes with every argument and every field of a change. */
export const FEED = `query($after: String, $first: Int, $event: String, $types: [ChangeType!]) {
  changes(after: $after, first: $first, event: $event, types: $types) {
    nodes { id cursor type occurredAt eventSlug event { slug name } registration { id } registrant { name email } }
    edges { cursor node { id } }
    pageInfo { endCursor hasNextPage } } }`;

export interface ChangeNode {
  id: string;
  cursor: string;
  type: string;
  occurredAt: string;
  eventSlug: string;
  event: { slug: string; name: string } | null;
  registration: { id: string } | null;
  registrant: { name: string; email: string | null } | null;
}

export interface Feed {
  nodes: ChangeNode[];
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { endCursor: string; hasNextPage: boolean };
}

export type Token = keyof Fixtures['tokens'];

/** `TYPE slug` of each change of a page, to compare pages at a glance. */
export const seen = (f: Feed) => f.nodes.map((n) => `${n.type} ${n.eventSlug}`);

/** Readers of the feed of a seeded server (its fields are read when called, after beforeAll). */
export function changeFeed(t: { server: TestServer; fx: Fixtures }) {
  /** One page, checked: status 200, no errors, edges mirror nodes; with the response text. */
  async function feed(token: Token, variables: Record<string, unknown> = {}): Promise<Feed & { text: string }> {
    const res = await gql(t.server, t.fx.tokens[token], FEED, variables);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const conn = res.body.data!.changes as Feed;
    expect(conn.edges).toEqual(conn.nodes.map((n) => ({ cursor: n.cursor, node: { id: n.id } })));
    return { ...conn, text: res.text };
  }
  return {
    feed,
    /** The current head, as `changes(first: 0)` gives it. */
    head: async () => (await feed('organizerUser', { first: 0 })).pageInfo.endCursor,
    /** A request refused with one error and no data: its status and error. */
    refusal: async (variables: Record<string, unknown>, accept = 'application/json') => {
      const res = await gql(t.server, t.fx.tokens.organizerUser, FEED, variables, accept);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      return { status: res.status, error: res.body.errors![0]! };
    },
  };
}
