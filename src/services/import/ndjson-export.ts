import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Stores } from '../../stores/stores.js';
import type { EventRow, Page, UserRow } from '../../stores/types.js';
import { eventFieldsJson } from '../../lib/event-fields.js';
import { jsonText } from '../../lib/text.js';
import type { ImportCounts } from './import-report.js';

/** Rows per keyset page: memory stays at one page whatever the table's size. */
export const EXPORT_PAGE = 1000;

// Every field is written, nulls included, so that importing the file restores these values over any stored ones.
const userRecord = (u: UserRow) => ({
  type: 'user',
  uid: u.uid,
  email: u.email,
  name: u.name,
  email_verified: u.emailVerified,
  picture: u.picture,
  zoneinfo: u.zoneinfo,
  activation_state: u.activationState,
});

// The organizers follow the name, as in every export so far (files diff line for line); assigning the fields after
// keeps the name in that place.
const eventRecord = (e: EventRow, organizers: string[]) =>
  Object.assign({ type: 'event', slug: e.slug, name: e.name, organizers }, eventFieldsJson(e));

/** Every row of a keyset-paged table, one page in memory at a time. */
async function* pages<T extends { id: number }>(
  page: (first: number, afterId: number | null) => Promise<Page<T>>,
): AsyncGenerator<T[]> {
  let afterId: number | null = null;
  for (;;) {
    const { rows, hasNextPage } = await page(EXPORT_PAGE, afterId);
    if (rows.length > 0) yield rows;
    if (!hasNextPage) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

/**
 * `roster export`: the import's NDJSON format. Users first, then events (organizers by uid), then
 * registrations, so the file imports in one pass; passwords, apps and tokens are not part of it.
 */
export class NdjsonExporter {
  constructor(private readonly stores: Stores) {}

  /**
   * Streams every record to `output` (honouring its back-pressure) from one consistent snapshot; `end: false`
   * leaves `output` open (stdout).
   */
  async run(output: Writable, { end = true } = {}): Promise<ImportCounts> {
    const counts: ImportCounts = { users: 0, events: 0, registrations: 0 };
    await this.stores.snapshot((tx) => pipeline(Readable.from(lines(tx, counts)), output, { end }));
    return counts;
  }
}

async function* lines(tx: Stores, counts: ImportCounts): AsyncGenerator<string> {
  for await (const users of pages((first, after) => tx.users.page(first, after))) {
    counts.users += users.length;
    // Names and URLs are users' own (and may predate the rule against control characters): jsonText keeps a
    // terminal (`roster export` writes to stdout by default) from acting on them, the values unchanged.
    yield users.map((u) => `${jsonText(userRecord(u))}\n`).join('');
  }
  for await (const events of pages((first, after) => tx.events.page(first, after))) {
    const organizers = await tx.events.organizerUids(events.map((e) => e.id));
    counts.events += events.length;
    yield events.map((e) => `${jsonText(eventRecord(e, organizers.get(e.id)!))}\n`).join('');
  }
  for await (const registrations of pages((first, after) => tx.registrations.everyPage(first, after))) {
    counts.registrations += registrations.length;
    yield registrations
      .map((r) => `${JSON.stringify({ type: 'registration', event: r.event, user: r.user })}\n`)
      .join('');
  }
}
