import type { Readable, Writable } from 'node:stream';
import { loadConfig, type Config } from '../config.js';
import { createDb, migrate, type Db } from '../stores/database.js';
import { databaseUnavailable } from '../stores/database-errors.js';
import { createServices, type Services } from '../services/services.js';
import { resetLinkFor } from '../http/reset-link.js';
import { createStores, type Stores } from '../stores/stores.js';
import { jsonText, terminalText } from './table.js';
import { validateWebhookUrl } from '../webhooks/webhook-url.js';

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
  /** For the identity provider (signing keys, tokens); the domain goes through `services`. */
  stores: Stores;
  services: Services;
}

export interface Output {
  /** Exactly what `--json` prints: one object. */
  json: Record<string, unknown>;
  /** A short line for people. */
  human: string;
  /** Set when the command ran but found a problem: printed after the output as `roster: …`, exit code 1. */
  failure?: string;
}

/** Runs one command against the configured database, printing its output; migrations are applied first. */
export function createRuntime(io: CliIo) {
  return async function run(
    opts: { json?: boolean },
    /** Resolves to undefined when the command's data already went to stdout (an export to `-`). */
    action: (env: Env) => Promise<Output | undefined>,
    { migrateFirst = true } = {},
  ): Promise<void> {
    const config = loadConfig(io.env);
    const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
    try {
      if (migrateFirst) await migrate(db);
      const stores = createStores(db);
      // The config carries the rules the services apply: production (https redirect URIs), MAX_APPS_PER_USER.
      const out = await action({
        config,
        db,
        stores,
        services: createServices(stores, config, {
          resetLink: resetLinkFor(config.baseUrl),
          validateWebhookUrl: (url) =>
            validateWebhookUrl(url, { production: config.production, allowHosts: config.webhookAllowHosts }),
        }),
      });
      if (!out) return;
      // Values in the output may be anyone's (an app's name): never a raw control character on a terminal.
      io.stdout.write(opts.json ? `${jsonText(out.json)}\n` : `${terminalText(out.human)}\n`);
      if (out.failure) throw new CliError(out.failure);
    } catch (err) {
      // A database that cannot be reached or opened: one line saying where (never the password) and why.
      throw databaseUnavailable(err, config.databaseUrl) ?? err;
    } finally {
      await db.destroy();
    }
  };
}

export type Run = ReturnType<typeof createRuntime>;

export const collect = (value: string, previous: string[]) => [...previous, value];

/** The first line of a stream (a secret piped in), without its line break. */
export async function readFirstLine(input: Readable): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0]!;
}
