/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query EventRegistrants($slug: String!) {\n    event(slug: $slug) {\n      registrations(first: 50) {\n        nodes {\n          registrant {\n            activationState\n            email\n            name\n          }\n        }\n      }\n    }\n  }\n": typeof types.EventRegistrantsDocument,
    "\n  query EventsPage($first: Int, $after: String) {\n    events(first: $first, after: $after) {\n      nodes {\n        slug\n        name\n        visibility\n        startsAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.EventsPageDocument,
    "\n  query CheckinStart($event: String!) {\n    event(slug: $event) {\n      name\n    }\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n": typeof types.CheckinStartDocument,
    "\n  subscription Checkin($event: String!) {\n    changes(event: $event, types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) {\n      cursor\n      type\n      registrant {\n        name\n      }\n    }\n  }\n": typeof types.CheckinDocument,
    "\n  query ChangesHead {\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n": typeof types.ChangesHeadDocument,
    "\n  query RegistrationsPage($slug: String!, $first: Int, $after: String) {\n    event(slug: $slug) {\n      registrations(first: $first, after: $after) {\n        nodes {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.RegistrationsPageDocument,
    "\n  query EventChanges($event: String!, $after: String, $first: Int) {\n    changes(\n      event: $event\n      after: $after\n      first: $first\n      types: [REGISTRATION_CREATED, REGISTRATION_DELETED, REGISTRANT_UPDATED, EVENT_DELETED]\n    ) {\n      nodes {\n        cursor\n        type\n        registration {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        registrant {\n          id\n          name\n          email\n          activationState\n        }\n      }\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n    }\n  }\n": typeof types.EventChangesDocument,
};
const documents: Documents = {
    "\n  query EventRegistrants($slug: String!) {\n    event(slug: $slug) {\n      registrations(first: 50) {\n        nodes {\n          registrant {\n            activationState\n            email\n            name\n          }\n        }\n      }\n    }\n  }\n": types.EventRegistrantsDocument,
    "\n  query EventsPage($first: Int, $after: String) {\n    events(first: $first, after: $after) {\n      nodes {\n        slug\n        name\n        visibility\n        startsAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.EventsPageDocument,
    "\n  query CheckinStart($event: String!) {\n    event(slug: $event) {\n      name\n    }\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n": types.CheckinStartDocument,
    "\n  subscription Checkin($event: String!) {\n    changes(event: $event, types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) {\n      cursor\n      type\n      registrant {\n        name\n      }\n    }\n  }\n": types.CheckinDocument,
    "\n  query ChangesHead {\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n": types.ChangesHeadDocument,
    "\n  query RegistrationsPage($slug: String!, $first: Int, $after: String) {\n    event(slug: $slug) {\n      registrations(first: $first, after: $after) {\n        nodes {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.RegistrationsPageDocument,
    "\n  query EventChanges($event: String!, $after: String, $first: Int) {\n    changes(\n      event: $event\n      after: $after\n      first: $first\n      types: [REGISTRATION_CREATED, REGISTRATION_DELETED, REGISTRANT_UPDATED, EVENT_DELETED]\n    ) {\n      nodes {\n        cursor\n        type\n        registration {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        registrant {\n          id\n          name\n          email\n          activationState\n        }\n      }\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n    }\n  }\n": types.EventChangesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventRegistrants($slug: String!) {\n    event(slug: $slug) {\n      registrations(first: 50) {\n        nodes {\n          registrant {\n            activationState\n            email\n            name\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').EventRegistrantsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventsPage($first: Int, $after: String) {\n    events(first: $first, after: $after) {\n      nodes {\n        slug\n        name\n        visibility\n        startsAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql.js').EventsPageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CheckinStart($event: String!) {\n    event(slug: $event) {\n      name\n    }\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql.js').CheckinStartDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription Checkin($event: String!) {\n    changes(event: $event, types: [REGISTRATION_CREATED, REGISTRATION_DELETED]) {\n      cursor\n      type\n      registrant {\n        name\n      }\n    }\n  }\n"): typeof import('./graphql.js').CheckinDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChangesHead {\n    changes(first: 0) {\n      pageInfo {\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql.js').ChangesHeadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RegistrationsPage($slug: String!, $first: Int, $after: String) {\n    event(slug: $slug) {\n      registrations(first: $first, after: $after) {\n        nodes {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').RegistrationsPageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventChanges($event: String!, $after: String, $first: Int) {\n    changes(\n      event: $event\n      after: $after\n      first: $first\n      types: [REGISTRATION_CREATED, REGISTRATION_DELETED, REGISTRANT_UPDATED, EVENT_DELETED]\n    ) {\n      nodes {\n        cursor\n        type\n        registration {\n          id\n          createdAt\n          registrant {\n            id\n            name\n            email\n            activationState\n          }\n        }\n        registrant {\n          id\n          name\n          email\n          activationState\n        }\n      }\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n    }\n  }\n"): typeof import('./graphql.js').EventChangesDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
