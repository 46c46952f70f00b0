import type { Readable, Writable } from 'node:stream';
import { loadConfig, type Config } from '../config.js';
import { createDb, migrate, type Db } from '../stores/knex.js';
import { createStores, type Stores } from '../stores/stores.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
}

/** A failure the operator can fix: printed as one line, exit code 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Env {
  config: Config;
  db: Db;
  stores: Stores;
}

export interface Output {
  /** Exactly what `--json` prints: one object. */
  json: Record<string, unknown>;
  /** A short line for people. */
  human: string;
}

/** Runs one command against the configured database, printing its output; migrations are applied first. */
export function createRuntime(io: CliIo) {
  return async function run(
    opts: { json?: boolean },
    action: (env: Env) => Promise<Output>,
    { migrateFirst = true } = {},
  ): Promise<void> {
    const config = loadConfig(io.env);
    const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
    try {
      if (migrateFirst) await migrate(db);
      const out = await action({ config, db, stores: createStores(db) });
      io.stdout.write(opts.json ? `${JSON.stringify(out.json)}\n` : `${out.human}\n`);
    } finally {
      await db.destroy();
    }
  };
}

export type Run = ReturnType<typeof createRuntime>;

/** Finds a user by email or uid, or fails with a clear message. */
export async function requireUser(stores: Stores, key: string) {
  const user = await stores.users.findByKey(key);
  if (!user) throw new CliError(`no user with ${key.includes('@') ? 'email' : 'uid'} ${key}`);
  return user;
}

export async function requireApp(stores: Stores, clientId: string) {
  const app = await stores.apps.findByClientId(clientId);
  if (!app) throw new CliError(`no app with client id ${clientId}`);
  return app;
}

export const collect = (value: string, previous: string[]) => [...previous, value];
