import type { EventsPageQuery as EventsPage } from './generated/graphql.js';
import { EventRegistrantsQuery, EventsPageQuery } from './operations.js';
import { execute, type Roster } from './roster.js';

/** Who registered for the event, as the canonical query answers it; null when the token cannot see the event. */
export async function registrants(roster: Roster, slug: string) {
  const data = await execute(roster, EventRegistrantsQuery, { slug });
  return data.event?.registrations?.nodes.map((node) => node.registrant) ?? null;
}

/** Every event the token may see, page by page (each page one request), oldest first. */
export async function* allEvents(roster: Roster, pageSize = 100) {
  let after: string | null = null;
  for (;;) {
    // Annotated: `after` comes from the previous page, which TypeScript cannot infer in a loop by itself.
    const { events }: EventsPage = await execute(roster, EventsPageQuery, { first: pageSize, after });
    yield* events.nodes;
    if (!events.pageInfo.hasNextPage) return;
    after = events.pageInfo.endCursor;
  }
}
