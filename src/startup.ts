import type Provider from 'oidc-provider';
import type { Config } from './config.js';
import { withLock, type Db } from './stores/database.js';
import { createStores } from './stores/stores.js';
import { mintAccessToken } from './oidc/mint-token.js';
import { DEMO, seedDemo, type DemoSeed } from './services/demo-seed.js';
import { createServices, type ServiceConfig, type Services } from './services/services.js';

/** On an empty database: loads the demo data. Returns what was created, or undefined. */
export async function seedOnEmptyDatabase(db: Db, config: ServiceConfig): Promise<DemoSeed | undefined> {
  // Instances starting together take turns: the first seeds, the others then find users and skip.
  return withLock(db, 'demo-seed', async (trx) => {
    const services = createServices(createStores(trx), config);
    if (!(await services.users.isEmpty())) return undefined;
    return seedDemo(services);
  });
}

const SEED_QUERY =
  'query($slug: String!) { event(slug: $slug) { registrations { nodes { registrant { activationState email name } } } } }';

/** What `npm start` prints once it listens: where it is and, after a fresh seed, how to query it. */
export async function startupBanner(
  config: Config,
  services: Services,
  provider: Provider,
  seeded?: DemoSeed,
): Promise<string> {
  const url = `${config.baseUrl}/graphql`;
  const lines = [`Roster is listening on ${config.baseUrl} — GraphQL at ${url}`];
  if (!seeded?.app) return `${lines.join('\n')}\n`;
  const { user: organizer, app } = await services.grants.tokenSubject(DEMO.organizerEmail, seeded.app.clientId);
  const userToken = await mintAccessToken(provider, {
    accountId: organizer.uid,
    clientId: app.clientId,
    scope: 'openid email profile',
  });
  const body = JSON.stringify({ query: SEED_QUERY, variables: { slug: DEMO.eventSlug } });
  lines.push(
    '',
    'Demo data loaded. Shown once:',
    `  app "${DEMO.appName}": client_id ${seeded.app.clientId}, client_secret ${seeded.app.clientSecret}`,
    `  app token (sees registrations, never emails): ${seeded.app.appToken}`,
    `  user token of ${DEMO.organizerEmail} (password ${DEMO.password}), valid ${userToken.expires_in} s:`,
    `  ${userToken.access_token}`,
    '',
    'Try the canonical query:',
    `  curl -s ${url} -H 'Authorization: Bearer ${userToken.access_token}' \\`,
    `    -H 'Content-Type: application/json' -H 'Accept: application/json' \\`,
    `    -d '${body}'`,
    '',
    `More tokens: npx roster token create --user ${DEMO.organizerEmail} --client ${DEMO.clientId} --scope "openid email profile"`,
  );
  return `${lines.join('\n')}\n`;
}
