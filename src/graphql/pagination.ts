import { BadUserInputError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const CURSOR_PREFIX = 'reg:';

/** Cursors are opaque to clients: base64url of the registration's id. */
export function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(id) || id < 0 || encodeCursor(id) !== cursor) {
    throw new BadUserInputError('`after` is not a cursor this API gave out.', 'after');
  }
  return id;
}

/** Validates `first`: default 100, 0 to 1000. */
export function pageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return DEFAULT_PAGE_SIZE;
  if (first < 0 || first > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`\`first\` must be between 0 and ${MAX_PAGE_SIZE}, got ${first}.`, 'first');
  }
  return first;
}
