/**
 * Rows or keys per batched statement: an import batch (500) in one statement, far below SQLite's 32,766
 * bound parameters for the widest row.
 */
const CHUNK = 500;

export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}
