import { createReadStream } from 'node:fs';
import { hashPassword } from '../lib/secrets.js';
import type { Db } from '../stores/knex.js';
import type { Stores } from '../stores/stores.js';
import { importNdjson, type ImportCounts } from './import/ndjson-import.js';

/** The demo data's known names (README "Demo data"). */
export const DEMO = {
  organizerEmail: 'organizer@example.com',
  password: 'roster-demo',
  clientId: 'roster-demo',
  appName: 'Roster Demo',
  redirectUri: 'http://localhost:3000/callback',
  eventSlug: 'roster-launch',
} as const;

// seeds/ sits at the repo root, beside both src/ (tests) and dist/ (built).
const DEMO_FILE = new URL('../../seeds/demo.ndjson', import.meta.url);

export interface DemoSeed {
  counts: ImportCounts;
  /** Set only on the run that created the demo app: its secret and token are shown once. */
  app?: { clientId: string; clientSecret: string; appToken: string };
}

/** Loads the demo data; idempotent: a second run changes nothing and creates no second app. */
export async function seedDemo(db: Db, stores: Stores): Promise<DemoSeed> {
  const counts = await importNdjson(db, createReadStream(DEMO_FILE));
  const organizer = await stores.users.findByEmail(DEMO.organizerEmail);
  if (!organizer) throw new Error(`the demo data has no ${DEMO.organizerEmail}`);
  if (!organizer.passwordHash) await stores.users.setPasswordHash(organizer.id, await hashPassword(DEMO.password));
  if (await stores.apps.findByClientId(DEMO.clientId)) return { counts };
  const made = await stores.apps.create({
    ownerId: organizer.id,
    name: DEMO.appName,
    redirectUris: [DEMO.redirectUri],
    clientId: DEMO.clientId,
  });
  return { counts, app: { clientId: made.app.clientId, clientSecret: made.clientSecret!, appToken: made.appToken } };
}
