import { graphql } from './generated/gql.js';

// graphql-codegen reads these documents and types each one: edit here, then regenerate (examples/README.md).

/** The canonical query: who registered for an event (emails only for its organizers). */
export const EventRegistrantsQuery = graphql(`
  query EventRegistrants($slug: String!) {
    event(slug: $slug) {
      registrations(first: 50) {
        nodes {
          registrant {
            activationState
            email
            name
          }
        }
      }
    }
  }
`);

/** One page of the events the token may see, oldest first; pass `endCursor` back as `after` for the next. */
export const EventsPageQuery = graphql(`
  query EventsPage($first: Int, $after: String) {
    events(first: $first, after: $after) {
      nodes {
        slug
        name
        visibility
        startsAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);
