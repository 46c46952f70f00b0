/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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