import type { TypedDocumentString } from './generated/graphql.js';

/** Where Roster is and the bearer token to call it with (a user access token or an app token). */
export interface Roster {
  url: string;
  token: string;
}

/** One GraphQL error as Roster sends it: `extensions.code` says what to do (see docs/api.md, Errors and limits). */
export interface GraphQLError {
  message: string;
  extensions?: { code?: string };
}

/** A request Roster refused or answered with errors: the HTTP status and Roster's own messages. */
export class RosterError extends Error {
  constructor(
    readonly status: number,
    readonly errors: GraphQLError[],
  ) {
    const said = errors.map((e) => `${e.message} (${e.extensions?.code ?? 'no code'})`);
    super(`Roster answered ${status}${said.length ? `: ${said.join('; ')}` : ''}`);
  }
}

/** Runs one generated operation with fetch; its variables and its answer are typed by the document. */
export async function execute<Result, Variables>(
  roster: Roster,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const res = await fetch(new URL('/graphql', roster.url), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${roster.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
    },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  // Roster's refusals are JSON too (a 401 for a bad token, a 429 past the rate limit), with a message and a code;
  // a proxy's error page in front of it may not be.
  const body = (await res.json().catch(() => ({}))) as { data?: Result | null; errors?: GraphQLError[] };
  if (!res.ok || body.errors?.length || !body.data) throw new RosterError(res.status, body.errors ?? []);
  return body.data;
}
