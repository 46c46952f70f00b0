// The fixed benchmark dataset: an organizer, one public event with 1,000 registrants (the page-size
// sweep), 20 events with exactly 50 registrants each (half of them private; the first is the canonical
// one), the organizer's user token; and for the no-repeat workload 20 more such events run by 50 organizers
// together, with a user token for each of them. The same loader on SQLite and PostgreSQL.
import { Readable } from 'node:stream';
import { rmSync } from 'node:fs';
import { loadConfig } from '../dist/config.js';
import { createDb, migrate } from '../dist/stores/database.js';
import { createStores } from '../dist/stores/stores.js';
import { createIdentity } from '../dist/oidc/provider.js';
import { NdjsonImporter } from '../dist/services/import/ndjson-import.js';
import { mintAccessToken } from '../dist/oidc/mint-token.js';

export const SWEEP_SLUG = 'bench-event';
export const REGISTRANTS = 1000;
export const ROTATING_EVENTS = 20;
export const ROTATING_REGISTRANTS = 50;
export const rotatingSlug = (i) => `bench-50-${String(i).padStart(2, '0')}`;
export const CANONICAL_SLUG = rotatingSlug(0);
export const DESK_EVENTS = 20;
export const DESK_ORGANIZERS = 50;
export const DESK_PAGE_SIZES = 100;
export const deskSlug = (i) => `bench-desk-${String(i).padStart(2, '0')}`;
const deskOrganizer = (k) => `desk${k}@bench.example`;
export const canonicalQuery = (first = 50) =>
  `query($slug: String!) { event(slug: $slug) { registrations(first: ${first}) { nodes { registrant { activationState email name } } } } }`;
/** The request body of the canonical query for this event and page size. */
export const queryBody = (slug, first) => JSON.stringify({ query: canonicalQuery(first), variables: { slug } });

/** The measured workloads: each connection walks its sequence from its own offset, in order and round again. */
export const WORKLOADS = {
  repeated: {
    title: `the canonical query repeated (first: 50 of an event with exactly ${ROTATING_REGISTRANTS} registrants)`,
    sequence: [queryBody(CANONICAL_SLUG, 50)],
  },
  rotating: {
    title: `rotating: ${ROTATING_EVENTS} events × first: 41–50 (half private), no answer twice in a row on a connection`,
    // Consecutive entries (and the last and the first) name different events.
    sequence: Array.from({ length: ROTATING_EVENTS * 10 }, (_, i) =>
      queryBody(rotatingSlug(i % ROTATING_EVENTS), 41 + Math.floor(i / ROTATING_EVENTS)),
    ),
  },
  distinct: {
    title: `no repeat: ${DESK_ORGANIZERS} organizers' tokens × ${DESK_EVENTS} events × first: 1–${DESK_PAGE_SIZES} (half private), every answer computed`,
    // Every (token, event, page size) once: 100,000 requests, more than a measured run sends, so no viewer
    // asks the same question twice and nothing can be replayed. `viewer` indexes createDataset's `tokens`.
    sequence: Array.from({ length: DESK_ORGANIZERS * DESK_EVENTS * DESK_PAGE_SIZES }, (_, i) => ({
      viewer: i % DESK_ORGANIZERS,
      body: queryBody(
        deskSlug(Math.floor(i / DESK_ORGANIZERS) % DESK_EVENTS),
        1 + (Math.floor(i / (DESK_ORGANIZERS * DESK_EVENTS)) % DESK_PAGE_SIZES),
      ),
    })),
  },
};

/** The request body of a workload's entry: a body, or a body with the viewer whose token sends it. */
export const bodyOf = (entry) => (typeof entry === 'string' ? entry : entry.body);

/** An empty database at databaseUrl (`sqlite:<file>` or `postgres://…`), migrated by Roster's own migrations. */
async function emptyDb(databaseUrl) {
  if (databaseUrl.startsWith('sqlite:')) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(databaseUrl.slice('sqlite:'.length) + suffix, { force: true });
  }
  const db = createDb(databaseUrl);
  if (!databaseUrl.startsWith('sqlite:')) await db.raw('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await migrate(db);
  return db;
}

function records() {
  const lines = [
    { type: 'user', email: 'organizer@bench.example', name: 'Bench Organizer' },
    { type: 'user', email: 'co@bench.example', name: 'Bench Co-organizer' },
  ];
  for (let i = 0; i < REGISTRANTS; i += 1) {
    const state = i % 10 === 0 ? 'pending' : 'active';
    lines.push({ type: 'user', email: `r${i}@bench.example`, name: `Registrant ${i}`, activation_state: state });
  }
  lines.push({ type: 'event', slug: SWEEP_SLUG, name: 'Bench Event', organizers: ['organizer@bench.example'] });
  for (let i = 0; i < REGISTRANTS; i += 1) {
    lines.push({ type: 'registration', event: SWEEP_SLUG, user: `r${i}@bench.example` });
  }
  for (let e = 0; e < ROTATING_EVENTS; e += 1) {
    const slug = rotatingSlug(e);
    const organizers = e % 4 === 1 ? ['co@bench.example', 'organizer@bench.example'] : ['organizer@bench.example'];
    lines.push({ type: 'event', slug, name: `Bench ${e}`, organizers, visibility: e % 2 ? 'private' : 'public' });
    for (let i = 0; i < ROTATING_REGISTRANTS; i += 1) {
      const user = (e * ROTATING_REGISTRANTS + i) % REGISTRANTS;
      lines.push({ type: 'registration', event: slug, user: `r${user}@bench.example` });
    }
  }
  for (let k = 0; k < DESK_ORGANIZERS; k += 1) {
    lines.push({ type: 'user', email: deskOrganizer(k), name: `Desk Organizer ${k}` });
  }
  const deskOrganizers = [
    'organizer@bench.example',
    ...Array.from({ length: DESK_ORGANIZERS }, (_, k) => deskOrganizer(k)),
  ];
  for (let e = 0; e < DESK_EVENTS; e += 1) {
    const slug = deskSlug(e);
    lines.push({
      type: 'event',
      slug,
      name: `Desk ${e}`,
      organizers: deskOrganizers,
      visibility: e % 2 ? 'private' : 'public',
    });
    for (let i = 0; i < ROTATING_REGISTRANTS; i += 1) {
      const user = (500 + e * ROTATING_REGISTRANTS + i) % REGISTRANTS;
      lines.push({ type: 'registration', event: slug, user: `r${user}@bench.example` });
    }
  }
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

export async function createDataset(databaseUrl) {
  const db = await emptyDb(databaseUrl);
  const stores = createStores(db);
  await new NdjsonImporter(stores).run(Readable.from([records()]));
  const organizer = await stores.users.findByEmail('organizer@bench.example');
  const { app } = await stores.apps.create({
    ownerId: organizer.id,
    name: 'Bench',
    redirectUris: ['https://bench.example/cb'],
  });
  const config = loadConfig({ NODE_ENV: 'production', BASE_URL: 'http://127.0.0.1', DATABASE_URL: databaseUrl }, false);
  const { provider } = await createIdentity({ config, stores });
  const mint = async (accountId) =>
    (await mintAccessToken(provider, { accountId, clientId: app.clientId, scope: 'openid email profile' }))
      .access_token;
  const token = await mint(organizer.uid);
  const tokens = [];
  for (let k = 0; k < DESK_ORGANIZERS; k += 1)
    tokens.push(await mint((await stores.users.findByEmail(deskOrganizer(k))).uid));
  await db.destroy();
  return { token, tokens };
}
