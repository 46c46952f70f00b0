import { readFile, rename, writeFile } from 'node:fs/promises';

/** A registrant as the copy keeps them (the email only for an organizer's user token). */
export interface Registrant {
  id: string;
  name: string;
  email: string | null;
  activationState: string;
}

/** One registration of the event: a registrant is registered for an event at most once. */
export interface Registration {
  id: string;
  createdAt: string;
  registrant: Registrant;
}

/** The local copy of one event's registrations, and where in the change feed it is up to date. */
export interface LocalCopy {
  /** The Roster it was read from, and the event: a copy of another one is read again, not resumed. */
  roster: string;
  event: string;
  /** The change feed's `endCursor` the copy includes everything up to. */
  cursor: string;
  /** Keyed by registrant id (a delete names the registrant, never a registration that is gone), oldest first. */
  registrations: Map<string, Registration>;
}

/** What the file holds: the copy, its registrations as a list in registration order. */
interface CopyFile {
  roster: string;
  event: string;
  cursor: string;
  registrations: Registration[];
}

/** The copy stored at `path`, or null when there is none yet. */
export async function loadCopy(path: string): Promise<LocalCopy | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const file = JSON.parse(text) as CopyFile;
  return { ...file, registrations: new Map(file.registrations.map((r) => [r.registrant.id, r])) };
}

/** Writes the copy to `path` whole or not at all (a new file renamed over the old one). */
export async function saveCopy(path: string, copy: LocalCopy): Promise<void> {
  const file: CopyFile = { ...copy, registrations: [...copy.registrations.values()] };
  const partial = `${path}.partial`;
  await writeFile(partial, `${JSON.stringify(file, null, 2)}\n`);
  await rename(partial, path);
}

/** Adds a registration (or replaces its registrant's earlier one, which moves it to the end: it is newer). */
export function putRegistration(copy: LocalCopy, registration: Registration): void {
  const known = copy.registrations.get(registration.registrant.id);
  if (known && known.id !== registration.id) copy.registrations.delete(registration.registrant.id);
  copy.registrations.set(registration.registrant.id, registration);
}
