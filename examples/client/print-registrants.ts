import { registrants } from './queries.js';
import type { Roster } from './roster.js';

/** The canonical query's answer, one registrant a line. */
export async function printRegistrants(roster: Roster, slug: string, print: (line: string) => void): Promise<void> {
  const people = await registrants(roster, slug);
  if (!people) return print(`No event ${slug} (or this token may not see it).`);
  print(`Registrants of ${slug}:`);
  for (const r of people) print(`  ${r.name}  ${r.email ?? '(no email)'}  ${r.activationState}`);
}
