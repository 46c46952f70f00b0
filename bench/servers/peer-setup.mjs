// What the peers share with Roster: the same schema file, the same resolvers and their data access
// (services, stores and DataLoaders), the same bearer-token resolution. Not Roster's cost and rate limits.
import { readFileSync } from 'node:fs';
import { createViewerLookup } from '../../dist/services/bearer.js';
import { explorerName } from '../../dist/services/explorer-client.js';
import { bearerToken } from '../../dist/http/bearer-auth.js';
import { loadConfig } from '../../dist/config.js';
import { createDb } from '../../dist/stores/database.js';
import { createStores } from '../../dist/stores/stores.js';
import { createServices } from '../../dist/services/services.js';
import { buildContext } from '../../dist/graphql/context.js';
import { resolvers } from '../../dist/graphql/resolvers/index.js';
import { createAccessTokenLookup } from '../../dist/oidc/access-token-lookup.js';
import { createIdentity } from '../../dist/oidc/provider.js';

export const typeDefs = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
export { resolvers };

export async function peerSetup() {
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent' }, false);
  const db = createDb(config.databaseUrl);
  const stores = createStores(db);
  const services = createServices(stores, config);
  const identity = await createIdentity({ config, stores });
  const bearer = createViewerLookup(stores, createAccessTokenLookup(identity), {
    explorerName: explorerName(config.serviceName),
  });
  let n = 0;
  /** The GraphQL context for a request's Authorization header; throws on a bad token. */
  const contextFor = async (authorization) => {
    const { viewer } = await bearer(bearerToken(authorization));
    return buildContext(viewer, services, String((n += 1)), {});
  };
  return { config, contextFor };
}
