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
  showEmail: boolean;
}

export interface RegistrantModel {
  user: RegistrantRow;
  showEmail: boolean;
}
