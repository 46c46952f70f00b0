// The fixed benchmark dataset: one organizer, one public event with 1,000 registrants, a user token.
import { Readable } from 'node:stream';
import { rmSync } from 'node:fs';
import { loadConfig } from '../dist/config.js';
import { createDb, migrate } from '../dist/stores/knex.js';
import { createStores } from '../dist/stores/stores.js';
import { createIdentity } from '../dist/identity/provider.js';
import { NdjsonImporter } from '../dist/services/import/ndjson-import.js';
import { mintAccessToken } from '../dist/identity/mint-token.js';

export const EVENT_SLUG = 'bench-event';
export const REGISTRANTS = 1000;
export const canonicalQuery = (first = 50) =>
  `query($slug: String!) { event(slug: $slug) { registrations(first: ${first}) { nodes { registrant { activationState email name } } } } }`;

export async function createDataset(file) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  const databaseUrl = `sqlite:${file}`;
  const db = createDb(databaseUrl);
  await migrate(db);
  const lines = [JSON.stringify({ type: 'user', email: 'organizer@bench.example', name: 'Bench Organizer' })];
  for (let i = 0; i < REGISTRANTS; i += 1) {
    const state = i % 10 === 0 ? 'pending' : 'active';
    lines.push(
      JSON.stringify({ type: 'user', email: `r${i}@bench.example`, name: `Registrant ${i}`, activation_state: state }),
    );
  }
  lines.push(
    JSON.stringify({ type: 'event', slug: EVENT_SLUG, name: 'Bench Event', organizers: ['organizer@bench.example'] }),
  );
  for (let i = 0; i < REGISTRANTS; i += 1) {
    lines.push(JSON.stringify({ type: 'registration', event: EVENT_SLUG, user: `r${i}@bench.example` }));
  }
  const stores = createStores(db);
  await new NdjsonImporter(stores).run(Readable.from([lines.join('\n') + '\n']));
  const organizer = await stores.users.findByEmail('organizer@bench.example');
  const { app } = await stores.apps.create({
    ownerId: organizer.id,
    name: 'Bench',
    redirectUris: ['https://bench.example/cb'],
  });
  const config = loadConfig({ NODE_ENV: 'production', BASE_URL: 'http://127.0.0.1', DATABASE_URL: databaseUrl }, false);
  const { provider } = await createIdentity({ config, stores });
  const { access_token: token } = await mintAccessToken(provider, {
    accountId: organizer.uid,
    clientId: app.clientId,
    scope: 'openid email profile',
  });
  await db.destroy();
  return { databaseUrl, token };
}
