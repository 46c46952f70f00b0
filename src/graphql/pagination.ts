import { CHANGE_CURSOR_PREFIX, encodeChangeCursor, isRowId } from '../lib/ids.js';
import { BadUserInputError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** Each connection's cursors carry their own prefix: one connection's cursor is refused by another. */
export type CursorKind = 'reg' | 'evt';

/** Cursors are opaque to clients: base64url of the item's id, tagged by connection. */
export function encodeCursor(id: number, kind: CursorKind = 'reg'): string {
  return Buffer.from(`${kind}:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string, argument = 'after', kind: CursorKind = 'reg'): number {
  const prefix = `${kind}:`;
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = text.startsWith(prefix) ? Number(text.slice(prefix.length)) : NaN;
  // A row id the column can hold (1..MAX_ROW_ID), in the one spelling encodeCursor writes.
  if (!isRowId(id) || encodeCursor(id, kind) !== cursor) {
    throw new BadUserInputError(`\`${argument}\` is not a cursor this API gave out.`, argument);
  }
  return id;
}

/** Validates `first` (or `last`): default 100, 0 to 1000. */
export function pageSize(first: number | null | undefined, argument = 'first'): number {
  if (first === null || first === undefined) return DEFAULT_PAGE_SIZE;
  if (first < 0 || first > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`\`${argument}\` must be between 0 and ${MAX_PAGE_SIZE}, got ${first}.`, argument);
  }
  return first;
}

/** A connection's arguments, checked: a page of `size` from the start, or from the end when `backward`. */
export interface PageRequest {
  size: number;
  backward: boolean;
  afterId: number | null;
  beforeId: number | null;
}

interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** Checks `first`/`after`/`last`/`before` as GitHub does: `first` and `last` together are refused. */
export function pageRequest(args: PageArgs, connection: string, kind: CursorKind = 'reg'): PageRequest {
  if (given(args.first) && given(args.last)) {
    throw new BadUserInputError(
      `Passing both \`first\` and \`last\` to paginate the \`${connection}\` connection is not supported.`,
      'last',
    );
  }
  const backward = given(args.last);
  return {
    size: backward ? pageSize(args.last, 'last') : pageSize(args.first),
    backward,
    afterId: given(args.after) ? decodeCursor(args.after, 'after', kind) : null,
    beforeId: given(args.before) ? decodeCursor(args.before, 'before', kind) : null,
  };
}

export { encodeChangeCursor };

/** The refusal of a change cursor this API did not give out. */
export const notGivenOut = (argument: string) =>
  new BadUserInputError(`\`${argument}\` is not a cursor of \`changes\` this API gave out.`, argument);

export function decodeChangeCursor(cursor: string, argument = 'after'): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const position = text.startsWith(CHANGE_CURSOR_PREFIX) ? Number(text.slice(CHANGE_CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(position) || position < 0 || encodeChangeCursor(position) !== cursor) {
    throw notGivenOut(argument);
  }
  return position;
}
