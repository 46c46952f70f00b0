import type { EventRow, PageWindow, RegistrantRow, RegistrationWithRegistrant } from '../stores/types.js';

// What the connection types resolve from: rows plus the one permission decision made for the page.

export interface RegistrationConnectionModel {
  eventId: number;
  page: PageWindow<RegistrationWithRegistrant>;
  /** Decided once per connection by the policy: may this viewer see registrant emails? */
  showEmail: boolean;
}

export type EventConnectionModel = PageWindow<EventRow>;

export interface RegistrationModel {
  row: RegistrationWithRegistrant;
  /** Made with it: a property graphql-jit reads, not a resolver it calls for each registration of a page. */
  registrant: RegistrantModel;
}

/**
 * A registrant as the schema shows it, each field a property: graphql-jit reads a property where it would
 * call a resolver (with its resolve info) for each field of each of a page's registrants.
 */
export interface RegistrantModel {
  /** The user's uid. */
  id: string;
  name: string;
  /** Only where the viewer may see it. */
  email: string | null;
  activationState: string;
}

/** The one way a registrant is shown: its email only when `showEmail` (decided by the policy). */
export const registrantModel = (
  user: Pick<RegistrantRow, 'uid' | 'name' | 'email' | 'activationState'>,
  showEmail: boolean,
): RegistrantModel => ({
  id: user.uid,
  name: user.name,
  email: showEmail ? user.email : null,
  activationState: user.activationState,
});

/** A registration and its registrant, as the schema shows them to a viewer who may (`showEmail`) see emails. */
export const registrationModel = (row: RegistrationWithRegistrant, showEmail: boolean): RegistrationModel => ({
  row,
  registrant: registrantModel(row.registrant, showEmail),
});
