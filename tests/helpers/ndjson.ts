import type { Db } from '../../src/stores/database.js';

/** Records as an NDJSON file's text, one JSON object a line. */
export const ndjson = (...records: object[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Every row of every domain table in a stable order, to compare a database before and after. */
export async function domainRows(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ['users', 'events', 'event_organizers', 'registrations']) {
    out[table] = await db(table)
      .select('*')
      .orderBy(table === 'event_organizers' ? ['event_id', 'user_id'] : ['id']);
  }
  return out;
}
