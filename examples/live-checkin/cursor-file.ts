import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** Where the check-in list is: the Roster and event it follows, and the cursor of the last change it printed. */
export interface StoredCursor {
  roster: string;
  event: string;
  cursor: string;
}

/** The cursor stored at `path`, or null when there is none yet. */
export function loadCursor(path: string): StoredCursor | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StoredCursor;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Writes the cursor whole or not at all (a new file renamed over the old one), before the next change is
 * handled: synchronous, so a stop at any moment leaves the cursor of the last change printed.
 */
export function saveCursor(path: string, stored: StoredCursor): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(stored)}\n`);
  renameSync(`${path}.tmp`, path);
}
