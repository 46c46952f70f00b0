/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** What a change did. */
export type ChangeType =
  /** An event was created. */
  | 'EVENT_CREATED'
  /** An event was deleted. */
  | 'EVENT_DELETED'
  /** An event's name, times, time zone, visibility or organizers changed. */
  | 'EVENT_UPDATED'
  /** A registrant's name, email, email_verified or activation state changed (once per event they are registered for). */
  | 'REGISTRANT_UPDATED'
  /** A registration was added. */
  | 'REGISTRATION_CREATED'
  /** A registration was removed. */
  | 'REGISTRATION_DELETED';

/** Who may see an event. */
export type EventVisibility =
  /** Only the event's organizers (and apps owned by one) see the event; to anyone else it does not exist. */
  | 'PRIVATE'
  /** Anyone with a token sees the event (its registrations stay for its organizers). */
  | 'PUBLIC';

export type EventRegistrantsQueryVariables = Exact<{
  slug: string;
}>;


export type EventRegistrantsQuery = { event: { registrations: { nodes: Array<{ registrant: { activationState: string, email: string | null, name: string } }> } | null } | null };

export type EventsPageQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type EventsPageQuery = { events: { nodes: Array<{ slug: string, name: string, visibility: EventVisibility, startsAt: string | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type CheckinStartQueryVariables = Exact<{
  event: string;
}>;


export type CheckinStartQuery = { event: { name: string } | null, changes: { pageInfo: { endCursor: string } } };

export type CheckinSubscriptionVariables = Exact<{
  event: string;
}>;


export type CheckinSubscription = { changes: { cursor: string, type: ChangeType, registrant: { name: string } | null } };

export type ChangesHeadQueryVariables = Exact<{ [key: string]: never; }>;


export type ChangesHeadQuery = { changes: { pageInfo: { endCursor: string } } };

export type RegistrationsPageQueryVariables = Exact<{
  slug: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type RegistrationsPageQuery = { event: { registrations: { nodes: Array<{ id: string, createdAt: string, registrant: { id: string, name: string, email: string | null, activationState: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null } | null };

export type EventChangesQueryVariables = Exact<{
  event: string;
  after?: string | null | undefined;
  first?: number | null | undefined;
}>;


export type EventChangesQuery = { changes: { nodes: Array<{ cursor: string, type: ChangeType, registration: { id: string, createdAt: string, registrant: { id: string, name: string, email: string | null, activationState: string } } | null, registrant: { id: string, name: string, email: string | null, activationState: string } | null }>, pageInfo: { endCursor: string, hasNextPage: boolean } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const EventRegistrantsDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<EventRegistrantsQuery, EventRegistrantsQueryVariables>;
export const EventsPageDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<EventsPageQuery, EventsPageQueryVariables>;
export const CheckinStartDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<CheckinStartQuery, CheckinStartQueryVariables>;
export const CheckinDocument = new TypedDocumentString(`
    subscription Checkin($event: String!) {
  changes(event: $event, types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) {
    cursor
    type
    registrant {
      name
    }
  }
}
    `) as unknown as TypedDocumentString<CheckinSubscription, CheckinSubscriptionVariables>;
export const ChangesHeadDocument = new TypedDocumentString(`
    query ChangesHead {
  changes(first: 0) {
    pageInfo {
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<ChangesHeadQuery, ChangesHeadQueryVariables>;
export const RegistrationsPageDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<RegistrationsPageQuery, RegistrationsPageQueryVariables>;
export const EventChangesDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<EventChangesQuery, EventChangesQueryVariables>;