import type { TestServer } from './harness.js';

export interface GraphQLResult {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  text: string;
}

/** POSTs a GraphQL request to the running server, as a client would. */
export async function gql(
  server: TestServer,
  token: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  accept = 'application/json',
): Promise<GraphQLResult> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: accept,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(variables ? { query, variables } : { query }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
}

export const SEED_QUERY =
  'query($slug: String!) { event(slug: $slug) { registrations { nodes { registrant { activationState email name } } } } }';
