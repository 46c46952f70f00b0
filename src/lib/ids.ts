import { randomToken } from './secrets.js';

/** App tokens carry a prefix so secret scanners can recognise a leaked one. */
export const APP_TOKEN_PREFIX = 'rst_app_';
export const CLIENT_SECRET_PREFIX = 'rst_cs_';
export const PERSONAL_TOKEN_PREFIX = 'rst_pat_';

/** A new user's public id. */
export const newUid = (): string => randomToken('u_', 12);

/** A client id: 16 random bytes in base64url, never beginning with `-` (a command line would take it for an option). */
export function newClientId(): string {
  for (;;) {
    const id = randomToken('', 16);
    if (!id.startsWith('-')) return id;
  }
}

/**
 * The largest row id: primary keys are knex `increments`, a 32-bit `integer` on PostgreSQL. A number
 * outside 1..MAX_ROW_ID was never given out; passed on, PostgreSQL refuses it with an error (and its SQL).
 */
export const MAX_ROW_ID = 2_147_483_647;

/** Whether `n` could be a row's id: a whole number from 1 to MAX_ROW_ID. */
export const isRowId = (n: number): boolean => Number.isSafeInteger(n) && n >= 1 && n <= MAX_ROW_ID;

/** Opaque, type-tagged ids: `Event:12` → base64url. */
export function globalId(type: string, id: number): string {
  return Buffer.from(`${type}:${id}`).toString('base64url');
}

/** The type and row id a global id names; undefined for anything `globalId` did not make (or could not have). */
export function parseGlobalId(id: string): { type: string; id: number } | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
  const match = /^([A-Za-z]+):(\d{1,10})$/.exec(Buffer.from(id, 'base64url').toString());
  if (!match || !isRowId(Number(match[2]))) return undefined;
  const parsed = { type: match[1]!, id: Number(match[2]) };
  // Only the one spelling `globalId` writes: no padding or leading-zero variants of the same id.
  return globalId(parsed.type, parsed.id) === id ? parsed : undefined;
}

/** What a change cursor encodes before the position. */
export const CHANGE_CURSOR_PREFIX = 'chg:';

/** A change cursor (the feed's, a webhook payload's): a position in the change log, 0 (before the first change) included. */
export function encodeChangeCursor(position: number): string {
  return Buffer.from(`${CHANGE_CURSOR_PREFIX}${position}`).toString('base64url');
}
