import { createDb, type Db } from '../../src/stores/database.js';
import { createStores, type Stores } from '../../src/stores/stores.js';
import type { TestServer } from './harness.js';

/**
 * Another connection to the server's database, for the enclosing test file: what another instance or the CLI
 * writes through, a write the server takes no part in. Fields are set in beforeAll.
 */
export function useOtherConnection(t: { server: TestServer }): { db: Db; stores: Stores } {
  const other = {} as { db: Db; stores: Stores };
  beforeAll(() => {
    other.db = createDb(t.server.config.databaseUrl);
    other.stores = createStores(other.db);
  });
  afterAll(() => other.db.destroy());
  return other;
}
