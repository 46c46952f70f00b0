import { jsonText, printable } from '../lib/text.js';

// What the CLI prints comes from users too (names, redirect URIs, and data stored before the rules refused
// control characters): for people each value is printable (escaped, cut to 200 characters); --json is exact.

/** Human output, line by line: any control or text-direction character left in it is written out visibly. */
export const terminalText = (text: string): string =>
  text
    .split('\n')
    .map((line) => printable(line, Infinity))
    .join('\n');

/** `--json`'s one object: the exact JSON value, with no raw control or text-direction character in its text. */
export { jsonText };

/** Plain padded columns for people (no dependency needed for this): a header row, then one row per item. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null ? '-' : printable(String(c)))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Fields of one record, one per line: `name  value`. */
type Value = string | number | boolean | null | readonly string[];

export function fields(record: Record<string, Value>): string {
  const show = (v: Value) =>
    v === null
      ? '-'
      : Array.isArray(v)
        ? (v as readonly string[]).map((x) => printable(x)).join(', ') || '-'
        : printable(String(v));
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(([k, v]) => `${k.padEnd(width)}  ${show(v)}`)
    .join('\n');
}

/** The cursor of the page after this one (what --after takes), or null on the last page. */
export const nextCursor = (page: { rows: { id: number }[]; hasNextPage: boolean }): string | null =>
  page.hasNextPage ? String(page.rows.at(-1)!.id) : null;

/** A page's rows for people, with how to ask for the next page. */
export function pageText(text: string, count: number, next: string | null): string {
  if (count === 0) return 'none';
  return next === null ? text : `${text}\nmore: repeat with --after ${next}`;
}

export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
