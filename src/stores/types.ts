import type { EventFieldValues, Visibility } from '../lib/event-fields.js';

/** Row types: what the stores return. GraphQL mappers point at these. */

export type ActivationState = 'active' | 'pending' | 'deactivated';
export const ACTIVATION_STATES: readonly ActivationState[] = ['active', 'pending', 'deactivated'];
/** The one state in which a user signs in and their apps work (services/account-state.ts). */
export const ACTIVE: ActivationState = 'active';

export type { Visibility };

export interface UserRow {
  id: number;
  uid: string;
  email: string | null;
  emailVerified: boolean;
  name: string;
  picture: string | null;
  zoneinfo: string | null;
  passwordHash: string | null;
  activationState: ActivationState;
  createdAt: number;
  updatedAt: number;
}

/** The key and timestamps, and the editable fields of lib/event-fields.ts. */
export interface EventRow extends EventFieldValues {
  id: number;
  slug: string;
  createdAt: number;
  updatedAt: number;
}

/** An event read with its organizers' user ids (in no set order), in one statement. */
export interface EventWithOrganizers extends EventRow {
  organizerIds: number[];
}

export interface RegistrationRow {
  id: number;
  eventId: number;
  userId: number;
  createdAt: number;
}

/** What a registration page shows of its user: the registrant's columns only. */
export type RegistrantRow = Pick<UserRow, 'id' | 'uid' | 'name' | 'email' | 'activationState'>;

/** A registration read with its registrant, in the page's one statement. */
export interface RegistrationWithRegistrant extends RegistrationRow {
  registrant: RegistrantRow;
}

export interface ClientAppRow {
  id: number;
  clientId: string;
  ownerId: number;
  name: string;
  redirectUris: string[];
  clientSecretHash: string | null;
  grantTypes: string[];
  createdAt: number;
  updatedAt: number;
}

/** One page of a keyset-paginated list. */
export interface Page<T> {
  rows: T[];
  hasNextPage: boolean;
}

/** A keyset range of ids: after one, before another, read from the end when `backward`. */
export interface KeysetRange {
  afterId: number | null;
  beforeId: number | null;
  backward: boolean;
}

/** A page, oldest first, and whether items lie on either side of it. */
export interface PageWindow<T> extends Page<T> {
  hasPreviousPage: boolean;
}
