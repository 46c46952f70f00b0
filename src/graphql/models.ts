import type { Page, RegistrantRow, RegistrationWithRegistrant } from '../db/types.js';

// What the connection types resolve from: rows plus the one permission decision made for the page.

export interface RegistrationConnectionModel {
  eventId: number;
  page: Page<RegistrationWithRegistrant>;
  afterId: number | null;
  /** Decided once per connection by the policy: may this viewer see registrant emails? */
  showEmail: boolean;
}

export interface RegistrationModel {
  row: RegistrationWithRegistrant;
  showEmail: boolean;
}

export interface RegistrantModel {
  user: RegistrantRow;
  showEmail: boolean;
}

/** Opaque, type-tagged ids: `Event:12` → base64url. */
export function globalId(type: string, id: number): string {
  return Buffer.from(`${type}:${id}`).toString('base64url');
}
