import { graphql } from '../client/generated/gql.js';

// The sync's documents: graphql-codegen types them into client/generated/ with the client's (examples/README.md).

/** The change feed's head: changes recorded after it are the ones still to apply. */
export const ChangesHeadQuery = graphql(`
  query ChangesHead {
    changes(first: 0) {
      pageInfo {
        endCursor
      }
    }
  }
`);

/** One page of an event's registrations, oldest first, with what the copy keeps of each. */
export const RegistrationsPageQuery = graphql(`
  query RegistrationsPage($slug: String!, $first: Int, $after: String) {
    event(slug: $slug) {
      registrations(first: $first, after: $after) {
        nodes {
          id
          createdAt
          registrant {
            id
            name
            email
            activationState
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`);

/** One page of the changes of an event after a cursor: only the types that change its registrations. */
export const EventChangesQuery = graphql(`
  query EventChanges($event: String!, $after: String, $first: Int) {
    changes(
      event: $event
      after: $after
      first: $first
      types: [REGISTRATION_CREATED, REGISTRATION_DELETED, REGISTRANT_UPDATED, EVENT_DELETED]
    ) {
      nodes {
        cursor
        type
        registration {
          id
          createdAt
          registrant {
            id
            name
            email
            activationState
          }
        }
        registrant {
          id
          name
          email
          activationState
        }
      }
      pageInfo {
        endCursor
        hasNextPage
      }
    }
  }
`);
