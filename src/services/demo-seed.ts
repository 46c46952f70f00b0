import { createReadStream } from 'node:fs';
import type { ImportCounts } from './import/import-report.js';
import type { Services } from './services.js';

/** The demo data's known names (README "Demo data"). */
export const DEMO = {
  organizerEmail: 'organizer@example.com',
  password: 'roster-demo',
  clientId: 'roster-demo',
  appName: 'Roster Demo',
  redirectUri: 'http://localhost:3000/callback',
  eventSlug: 'roster-launch',
} as const;

// seeds/ sits at the repo root, two levels above both src/services (tests) and dist/services (built).
const DEMO_FILE = new URL('../../seeds/demo.ndjson', import.meta.url);

export interface DemoSeed {
  counts: ImportCounts;
  /** Set only on the run that created the demo app: its secret and token are shown once. */
  app?: { clientId: string; clientSecret: string; appToken: string };
}

/** Loads the demo data; idempotent: a second run changes nothing and creates no second app. */
export async function seedDemo(services: Services): Promise<DemoSeed> {
  const counts = await services.importer.run(createReadStream(DEMO_FILE));
  const organizer = await services.users.findByKey(DEMO.organizerEmail);
  if (!organizer) throw new Error(`the demo data has no ${DEMO.organizerEmail}`);
  if (!organizer.passwordHash) await services.users.setPassword(organizer, DEMO.password);
  if (await services.apps.findByClientId(DEMO.clientId)) return { counts };
  const made = await services.apps.create({
    ownerId: organizer.id,
    name: DEMO.appName,
    redirectUris: [DEMO.redirectUri],
    clientId: DEMO.clientId,
  });
  return { counts, app: { clientId: made.app.clientId, clientSecret: made.clientSecret!, appToken: made.appToken } };
}
