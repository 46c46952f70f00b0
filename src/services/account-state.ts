import { ACTIVE, type UserRow } from '../stores/types.js';

type HasState = Pick<UserRow, 'activationState'>;

/**
 * The account-state rule: only an active user signs in, holds working tokens and sessions, gets reset
 * links and owns working apps. Pending (invited) and deactivated users do none of these; nothing is deleted,
 * so reactivation restores what has not expired. The stores' SQL applies the same rule with `ACTIVE`.
 */
export const isActive = (user: HasState | null | undefined): boolean => user?.activationState === ACTIVE;

/** An app is suspended while its owner is not active: its tokens stop and the provider refuses it. */
export const isSuspended = (owner: HasState | null | undefined): boolean => !isActive(owner);
