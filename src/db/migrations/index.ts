import type { Knex } from 'knex';
import * as init from './20261122000000_init.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed in code, not read from a folder, so the same list runs from src/ (tests) and dist/.
const migrations: Record<string, Migration> = {
  '20261122000000_init': init,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
