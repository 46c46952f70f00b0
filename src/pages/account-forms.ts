import type { Request } from 'express';
import { InvalidInput, type DomainError } from '../services/errors.js';

// What the account pages say and read of their forms.

/** Notices shown on the dashboard after an action, by the `done` query parameter. */
export const NOTICES: Record<string, string> = {
  deleted: 'The app was deleted; its tokens no longer work.',
  revoked: 'Access was revoked; that app’s tokens no longer work.',
  edited: 'The redirect URIs were saved; sign-in requests must now name one of them.',
};

/** A destructive form posted without its confirmation field gets the confirmation page instead. */
export const confirmed = (req: Request) => (req.body as Record<string, unknown>).confirm === 'yes';

/** The form's names for the services' fields. */
const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  redirect_uri: 'Redirect URI',
  url: 'URL',
  type: 'Change type',
  event: 'Event',
  scope: 'Scopes',
  expires_in: 'Expiry',
};

/** A refusal as the page shows it: one sentence, the field by its label on the form. */
export const sentence = (err: DomainError) => {
  const text =
    err instanceof InvalidInput && err.field ? `${FIELD_LABELS[err.field] ?? err.field} ${err.reason}` : err.message;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};
