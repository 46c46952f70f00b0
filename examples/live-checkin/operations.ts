import { graphql } from '../client/generated/gql.js';

// The check-in list's documents: graphql-codegen types them into client/generated/ with the client's (examples/README.md).

/** The event's name (null: no such event, or hidden from this token) and the change feed's head. */
export const CheckinStartQuery = graphql(`
  query CheckinStart($event: String!) {
    event(slug: $event) {
      name
    }
    changes(first: 0) {
      pageInfo {
        endCursor
      }
    }
  }
`);

/** An event's registrations as they are added and removed, each change with the cursor to resume after. */
export const CheckinSubscription = graphql(`
  subscription Checkin($event: String!) {
    changes(event: $event, types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) {
      cursor
      type
      registrant {
        name
      }
    }
  }
`);
